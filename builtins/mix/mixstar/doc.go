package mixstar

import "github.com/starbench/starbench/runner"

// declarationDocs document the builtins that declare a mix.
var declarationDocs = []runner.FuncDoc{
	{Name: "mix.define", Signature: "mix.define(name, tables, transactions, data={})",
		Doc: "Declares a mix. tables maps each table's name to its column and index definitions (\"id BIGINT PRIMARY KEY, c INT\") " +
			"or a whole CREATE TABLE statement naming it; the mix creates, loads and drops these tables and no others, and a " +
			"statement naming another table is an error here. data maps table names to mix.rows(...). transactions maps names " +
			"to mix.txn(...): each is a kind of event, drawn by weight, with its own count and latency histogram. Returns a mix " +
			"with .name, .version (a hash of the declaration, kept with the results), .tables and .transactions."},
	{Name: "mix.txn", Signature: "mix.txn(statements=None, weight=1, autocommit=False, retry_on=[], retries=3, think=0, event=None)",
		Doc: "A transaction: its mix.stmt(...) list, sent between BEGIN and COMMIT (autocommit=True sends them alone). An error " +
			"whose MySQL code is in retry_on rolls it back and runs it again, up to retries times, counted in the result's " +
			"retries; other errors are the run's (ignore_errors=, reconnects). think pauses the worker after the transaction, " +
			"outside its latency (closed loop only). event=fn, in place of statements, is the escape hatch for what statements " +
			"cannot say (a loop over a result, a branch on a value read): fn(ctx) runs per event between the same BEGIN and " +
			"COMMIT, on a Starlark thread of the worker's own, with ctx.exec(sql, *args) (affected rows), ctx.query(sql, *args, " +
			"limit=10000) (a list of row tuples), ctx.draw(generator) (any generator but ref and same, as a statement's argument " +
			"would draw it: a sequence counts with the run's other uses), ctx.uniform(lo, hi) and ctx.pattern(template) (drawn " +
			"from the worker's stream of the run seed) and ctx.worker (its id in the load). Each distinct text is prepared once per connection. fn and what it captures are " +
			"frozen when the transaction is declared; a server error inside fn is the transaction's (counted by code, retried by " +
			"retry_on), any other stops the run with fn's backtrace, and an event is bounded to 10 million Starlark steps. It is " +
			"slower than statements: Starlark runs per event (the README's speed table measures it)."},
	{Name: "mix.stmt", Signature: "mix.stmt(sql, *args)",
		Doc: "A statement with one argument per ? placeholder: a generator, or a constant (number, string, bool, None). Statements are " +
			"prepared once per connection. A statement returning rows may be followed by statements taking mix.ref(column) of its first row."},
	{Name: "mix.rows", Signature: "mix.rows(n, **columns)",
		Doc: "How mix.prepare fills a table: n rows, each column (a keyword, in order) drawn from its generator or constant. Row r " +
			"(from 0) of a sequence is start + r*step, so keys are dense and known."},
	{Name: "mix.uniform", Signature: "mix.uniform(lo, hi)", Doc: "Integers uniform in [lo, hi]; floats uniform in [lo, hi) when either bound is a float."},
	{Name: "mix.gaussian", Signature: "mix.gaussian(lo, hi, iter=12)", Doc: "sysbench's gaussian on [lo, hi]: the mean of iter uniform draws."},
	{Name: "mix.special", Signature: "mix.special(lo, hi, pct=1, res=75)",
		Doc: "sysbench 1.0.20's default distribution on [lo, hi]: res percent of the draws in the middle pct percent of the range."},
	{Name: "mix.pareto", Signature: "mix.pareto(lo, hi, h=0.2)", Doc: "sysbench's pareto on [lo, hi]: with h=0.2, 80% of the draws in the first 20%."},
	{Name: "mix.zipfian", Signature: "mix.zipfian(lo, hi, theta=0.99, scrambled=False)",
		Doc: "YCSB's zipfian on [lo, hi]: lo the most frequent value. scrambled=True is YCSB's scrambled zipfian: the popular " +
			"values hashed (FNV-1a 64) over the range."},
	{Name: "mix.latest", Signature: "mix.latest(sequence, lo=1, theta=0.99)",
		Doc: "YCSB's latest: the sequence's last value minus a zipfian draw over the values from lo up to it, so the newest rows are " +
			"read most. With rows loaded 1..N and inserts numbered by mix.sequence(start = N + 1), it draws from every row, the " +
			"loaded ones before the first insert."},
	{Name: "mix.sequence", Signature: "mix.sequence(start=1, step=1, per_worker=False)",
		Doc: "start, start+step, ...: one count shared by the workers, or one per worker with per_worker=True."},
	{Name: "mix.unique_id", Signature: "mix.unique_id(start=1)",
		Doc: "Ids no other worker of the run gives, without a shared counter: worker w of n gives start+w, start+w+n, ..."},
	{Name: "mix.string", Signature: "mix.string(min, max=min)", Doc: "Random letters and digits, min to max of them."},
	{Name: "mix.pattern", Signature: "mix.pattern(template)",
		Doc: "sysbench's random strings: each '#' a digit, each '@' a lowercase letter, the rest as written (\"###########-###########\")."},
	{Name: "mix.choice", Signature: "mix.choice(values, weights=None)", Doc: "One of values (constants), by weight (all 1 without weights)."},
	{Name: "mix.timestamp", Signature: "mix.timestamp(lo, hi)",
		Doc: "Times uniform to the second between lo and hi (\"2006-01-02 15:04:05\" or \"2006-01-02\", UTC)."},
	{Name: "mix.now", Signature: "mix.now()", Doc: "The client's clock (UTC) when the statement is sent: not repeatable by seed."},
	{Name: "mix.ref", Signature: "mix.ref(column)",
		Doc: "The value of column in the first row of the latest earlier statement of the transaction that returns it (NULL when it " +
			"returned no row); a column is named by its alias or its name."},
	{Name: "mix.same", Signature: "mix.same(generator, plus=0)",
		Doc: "The value generator drew at its latest earlier use in the transaction (an earlier argument of the statement, or " +
			"an earlier statement), plus plus for integers: r = mix.special(1, N) then mix.stmt(\"... BETWEEN ? AND ?\", r, " +
			"mix.same(r, plus = 99)), or a DELETE and an INSERT of one id."},
	{Name: "mix.key", Signature: "mix.key(generator, prefix=\"user\", hashed=True, pad=1)",
		Doc: "Key names as YCSB makes them: prefix and the decimal digits of an integer generator's draw, zero-padded to pad " +
			"digits; hashed=True (YCSB's default insert order) hashes the number first with go-ycsb's FNV-1a, so \"user\" + " +
			"hash(0), hash(1), ... for mix.key(mix.sequence(start = 0))."},
	{Name: "mix.either", Signature: "mix.either(statements)",
		Doc: "One of several statements, drawn uniformly each time the transaction runs, in the place of one statement of a " +
			"mix.txn: YCSB's update of one field of ten is mix.either([one UPDATE per field]). The alternatives may take refs " +
			"and sames of earlier statements; no later statement can take one of theirs (they may not have run)."},
}
