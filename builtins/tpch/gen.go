package tpch

import (
	"fmt"
	"time"
)

// Sizes and bounds of TPC-H's tables (clause 4.2.3), as dbgen has them.
const (
	suppPerPart   = 4
	lineMax       = 7 // lines of an order at most
	ordersPerCust = 10
	nationsMax    = 90 // phone country codes: 10 + nation mod 90
	clerksPerSF   = 1000

	startDate   = 92001 // 1992-01-01 in dbgen's yyddd days
	currentDate = 95168 // 1995-06-17
	totalDays   = 2557  // 1992-01-01 .. 1998-12-31
)

// The streams' numbers of each column.
const (
	sPartMfgr, sPartBrand, sPartType, sPartSize, sPartContainer = 0, 1, 2, 3, 4
	sPartComment                                                = 6
	sPSQty, sPSCost, sPSComment                                 = 7, 8, 9
	sOrderSupp, sOrderClerk, sOrderComment, sOrderDate          = 10, 11, 12, 13
	sLineQty, sLineDiscount, sLineTax, sLineInstruct, sLineMode = 14, 15, 16, 17, 18
	sLinePart, sLineSupp, sLineShip, sLineCommit, sLineReceipt  = 19, 20, 21, 22, 23
	sLineFlag, sLineComment                                     = 24, 25
	sCustAddress, sCustNation, sCustPhone, sCustBalance         = 26, 27, 28, 29
	sCustSegment, sCustComment                                  = 30, 31
	sSuppAddress, sSuppNation, sSuppPhone, sSuppBalance         = 32, 33, 34, 35
	sSuppComment, sPartName, sOrderPriority, sOrderCustomer     = 36, 37, 38, 40
	sNationComment, sRegionComment, sOrderLines                 = 41, 42, 43
	sBBBJunk, sBBBType, sBBBComment, sBBBOffset                 = 44, 45, 46, 47
)

// Generator makes TPC-H's rows for a scale factor exactly as dbgen (and
// go-tpc, which ports it) does: the same streams, draws and text, so that
// the same scale factor gives the same rows, and the specification's
// answers hold at scale factor 1. A Generator makes one table at a time,
// from its first row; it is not safe for concurrent use.
type Generator struct {
	scale   int64
	streams [streams]stream
	pool    []byte
	dates   []string // "1992-01-01" ... by day
}

// NewGenerator makes the generator of scale factor sf (1 or more): its
// streams at their seeds, and the text pool (300 MB, made by the first
// generator and shared by all).
func NewGenerator(sf int64) (*Generator, error) {
	if sf < 1 {
		return nil, fmt.Errorf("the scale factor must be 1 or more, got %d", sf)
	}
	if sf >= 30000 {
		return nil, fmt.Errorf("scale factor %d: the generator goes up to 29,999 (dbgen draws keys in 64 bits above)", sf)
	}
	g := &Generator{scale: sf, streams: streamTable, pool: textPool()}
	day := time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < totalDays; i++ {
		g.dates = append(g.dates, day.AddDate(0, 0, i).Format("2006-01-02"))
	}
	return g, nil
}

// Rows is how many rows a table has at the generator's scale factor
// (LineItem's is only known as its orders are made: 0).
func (g *Generator) Rows(t Table) int64 {
	switch t {
	case Part:
		return 200_000 * g.scale
	case PartSupp:
		return 200_000 * suppPerPart * g.scale
	case Supplier:
		return 10_000 * g.scale
	case Customer:
		return 150_000 * g.scale
	case Orders:
		return 150_000 * ordersPerCust * g.scale
	case Nation:
		return int64(len(dists()["nations"].tokens))
	case Region:
		return int64(len(dists()["regions"].tokens))
	}
	return 0
}

// money writes an amount in cents as dbgen does ("-12.05").
func money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// phone is a phone number of a nation's country code.
func (g *Generator) phone(nation int64, s int) string {
	area := g.random(100, 999, s)
	exchange := g.random(100, 999, s)
	number := g.random(1000, 9999, s)
	return fmt.Sprintf("%02d-%03d-%03d-%04d", 10+nation%nationsMax, area, exchange, number)
}

// NationRow is nation i (1-based): n_nationkey, n_name, n_regionkey,
// n_comment.
func (g *Generator) NationRow(i int64) []string {
	g.rowStart()
	d := dists()["nations"]
	row := []string{fmt.Sprint(i - 1), d.tokens[i-1], fmt.Sprint(d.cum[i-1]), g.text(72, sNationComment)}
	g.rowStop(Nation)
	return row
}

// RegionRow is region i (1-based): r_regionkey, r_name, r_comment.
func (g *Generator) RegionRow(i int64) []string {
	g.rowStart()
	row := []string{fmt.Sprint(i - 1), dists()["regions"].tokens[i-1], g.text(72, sRegionComment)}
	g.rowStop(Region)
	return row
}

// CustomerRow is customer i: c_custkey, c_name, c_address, c_nationkey,
// c_phone, c_acctbal, c_mktsegment, c_comment.
func (g *Generator) CustomerRow(i int64) []string {
	g.rowStart()
	address := g.variableString(25, sCustAddress)
	nation := g.random(0, int64(len(dists()["nations"].tokens)-1), sCustNation)
	phone := g.phone(nation, sCustPhone)
	balance := g.random(-99999, 999999, sCustBalance)
	segment := g.pick(dists()["msegmnt"], sCustSegment)
	row := []string{fmt.Sprint(i), fmt.Sprintf("Customer#%09d", i), address, fmt.Sprint(nation), phone, money(balance), segment,
		g.text(73, sCustComment)}
	g.rowStop(Customer)
	return row
}

// The Better Business Bureau's remarks some suppliers' comments carry
// (clause 4.2.3: 10 in 10,000 suppliers, half complaints).
const (
	bbbBase      = "Customer "
	bbbComplain  = "Complaints"
	bbbRecommend = "Recommends"
	bbbLength    = 19
)

// SupplierRow is supplier i: s_suppkey, s_name, s_address, s_nationkey,
// s_phone, s_acctbal, s_comment.
func (g *Generator) SupplierRow(i int64) []string {
	g.rowStart()
	address := g.variableString(25, sSuppAddress)
	nation := g.random(0, int64(len(dists()["nations"].tokens)-1), sSuppNation)
	phone := g.phone(nation, sSuppPhone)
	balance := g.random(-99999, 999999, sSuppBalance)
	comment := g.text(63, sSuppComment)
	bad := g.random(1, 10000, sBBBComment)
	kind := g.random(0, 100, sBBBType)
	noise := g.random(0, int64(len(comment)-bbbLength), sBBBJunk)
	offset := g.random(0, int64(len(comment))-(bbbLength+noise), sBBBOffset)
	if bad <= 10 {
		remark := bbbComplain
		if kind >= 50 {
			remark = bbbRecommend
		}
		comment = comment[:offset] + bbbBase + comment[offset+int64(len(bbbBase)):]
		at := int64(len(bbbBase)) + offset + noise
		comment = comment[:at] + remark + comment[at+int64(len(remark)):]
	}
	row := []string{fmt.Sprint(i), fmt.Sprintf("Supplier#%09d", i), address, fmt.Sprint(nation), phone, money(balance), comment}
	g.rowStop(Supplier)
	return row
}

// retailPrice is a part's price in cents (clause 4.2.3).
func retailPrice(part int64) int64 {
	return 90000 + (part/10)%20001 + (part%1000)*100
}

// partSupplier is the supplier of a part's s-th supply (0..3).
func (g *Generator) partSupplier(part, s int64) int64 {
	suppliers := 10_000 * g.scale
	return (part+s*(suppliers/suppPerPart+(part-1)/suppliers))%suppliers + 1
}

// PartRows are part i's row (p_partkey, p_name, p_mfgr, p_brand, p_type,
// p_size, p_container, p_retailprice, p_comment) and its four partsupp
// rows (ps_partkey, ps_suppkey, ps_availqty, ps_supplycost, ps_comment).
func (g *Generator) PartRows(i int64) ([]string, [][]string) {
	g.rowStart()
	name := g.partName()
	mfgr := g.random(1, 5, sPartMfgr)
	brand := g.random(1, 5, sPartBrand)
	kind := g.pick(dists()["p_types"], sPartType)
	size := g.random(1, 50, sPartSize)
	container := g.pick(dists()["p_cntr"], sPartContainer)
	part := []string{fmt.Sprint(i), name, fmt.Sprintf("Manufacturer#%d", mfgr), fmt.Sprintf("Brand#%02d", mfgr*10+brand), kind,
		fmt.Sprint(size), container, money(retailPrice(i)), g.text(14, sPartComment)}
	var supplies [][]string
	for s := int64(0); s < suppPerPart; s++ {
		qty := g.random(1, 9999, sPSQty)
		cost := g.random(100, 100000, sPSCost)
		supplies = append(supplies, []string{fmt.Sprint(i), fmt.Sprint(g.partSupplier(i, s)), fmt.Sprint(qty), money(cost),
			g.text(124, sPSComment)})
	}
	g.rowStop(PartPsupp)
	return part, supplies
}

// partName is five colours drawn without repetition: the first five of a
// shuffle of all of them.
func (g *Generator) partName() string {
	colors := dists()["colors"].tokens
	order := make([]int, len(colors))
	for i := range order {
		order[i] = i
	}
	for i := range order {
		j := g.random(int64(i), int64(len(order)-1), sPartName)
		order[i], order[j] = order[j], order[i]
	}
	name := colors[order[0]]
	for _, k := range order[1:5] {
		name += " " + colors[k]
	}
	return name
}

// sparseKey is order i's key: 8 keys used in every 32 (clause 4.2.3).
func sparseKey(i int64) int64 {
	return (((i >> 3) << 2) << 3) | (i & 7)
}

// julian is a day (days since 1992-01-01 added to startDate) as dbgen's
// yyddd, for comparing with currentDate.
func julian(date int64) int64 {
	offset, result := date-startDate, int64(startDate)
	for {
		year := result / 1000
		leap := int64(0)
		if year%4 == 0 && year%100 != 0 {
			leap = 1
		}
		end := year*1000 + 365 + leap
		if result+offset <= end {
			return result + offset
		}
		offset -= end - result + 1
		result += 1000
	}
}

// OrderRows are order i's row (o_orderkey, o_custkey, o_orderstatus,
// o_totalprice, o_orderdate, o_orderpriority, o_clerk, o_shippriority,
// o_comment) and its lines' (l_orderkey, l_partkey, l_suppkey,
// l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax,
// l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate,
// l_shipinstruct, l_shipmode, l_comment).
func (g *Generator) OrderRows(i int64) ([]string, [][]string) {
	g.rowStart()
	key := sparseKey(i)
	customers := 150_000 * g.scale
	// A third of the customers have no order: keys divisible by 3 move.
	cust := g.random(1, customers, sOrderCustomer)
	for delta := int64(1); cust%3 == 0; delta = -delta {
		cust = min(cust+delta, customers)
	}
	orderDate := g.random(startDate, startDate+totalDays-(121+30)-1, sOrderDate)
	priority := g.pick(dists()["o_oprio"], sOrderPriority)
	clerk := fmt.Sprintf("Clerk#%09d", g.random(1, max(g.scale*clerksPerSF, clerksPerSF), sOrderClerk))
	comment := g.text(49, sOrderComment)
	lines := g.random(1, lineMax, sOrderLines)
	var total int64
	shipped := 0
	var rows [][]string
	parts := 200_000 * g.scale
	for n := int64(1); n <= lines; n++ {
		qty := g.random(1, 50, sLineQty)
		discount := g.random(0, 10, sLineDiscount)
		tax := g.random(0, 8, sLineTax)
		instruct := g.pick(dists()["instruct"], sLineInstruct)
		mode := g.pick(dists()["smode"], sLineMode)
		lineComment := g.text(27, sLineComment)
		part := g.random(1, parts, sLinePart)
		supp := g.partSupplier(part, g.random(0, 3, sLineSupp))
		price := retailPrice(part) * qty
		total += price * (100 - discount) / 100 * (100 + tax) / 100
		ship := g.random(1, 121, sLineShip) + orderDate
		commit := g.random(30, 90, sLineCommit) + orderDate
		receipt := g.random(1, 30, sLineReceipt) + ship
		flag := "N"
		if julian(receipt) <= currentDate {
			flag = g.pick(dists()["rflag"], sLineFlag)[:1]
		}
		status := "O"
		if julian(ship) <= currentDate {
			status = "F"
			shipped++
		}
		rows = append(rows, []string{fmt.Sprint(key), fmt.Sprint(part), fmt.Sprint(supp), fmt.Sprint(n), fmt.Sprint(qty), money(price),
			money(discount), money(tax), flag, status, g.dates[ship-startDate], g.dates[commit-startDate], g.dates[receipt-startDate],
			instruct, mode, lineComment})
	}
	status := "O"
	if shipped > 0 {
		status = "P"
	}
	if shipped == len(rows) {
		status = "F"
	}
	order := []string{fmt.Sprint(key), fmt.Sprint(cust), status, money(total), g.dates[orderDate-startDate], priority, clerk, "0", comment}
	g.rowStop(OrderLine)
	return order, rows
}
