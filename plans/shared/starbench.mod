# Shared modules the plans in this folder load as @NAME//path.star: NAME URL COMMIT [REF].
# 'starbench mod add NAME URL[@REF]' pins one; 'starbench mod update [NAME]' moves a pin to
# where its tag or branch is now; 'starbench mod verify' checks the cached trees.
perf_team  https://git.example.com/perf-team/shared.git  17ea7650718799362c6702c51779eb0208f354d5  refs/tags/v1
