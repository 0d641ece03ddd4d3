//! TPC-H-style data at a scale factor: the eight tables of the TPC-H schema with
//! the specification's row counts (SF 1 = 6,001,215 line items) and value
//! distributions (dates, flags, prices, discounts, segments, priorities, the
//! nation / region map), from a fixed-seed generator, written as multi-row
//! INSERTs. Text columns (names, addresses, comments) are short pseudo-words:
//! they fill the rows without mattering to the five queries measured. This is
//! not `dbgen`, so results are not comparable with published TPC-H numbers; both
//! servers get the same rows.

/// Rows per INSERT statement.
const BATCH: usize = 500;

/// The TPC-H nations: (name, region).
const NATIONS: [(&str, u32); 25] = [
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
];
const REGIONS: [&str; 5] = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"];
const SEGMENTS: [&str; 5] = [
    "AUTOMOBILE",
    "BUILDING",
    "FURNITURE",
    "HOUSEHOLD",
    "MACHINERY",
];
const PRIORITIES: [&str; 5] = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"];
const INSTRUCTS: [&str; 4] = [
    "DELIVER IN PERSON",
    "COLLECT COD",
    "NONE",
    "TAKE BACK RETURN",
];
const MODES: [&str; 7] = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"];
const WORDS: [&str; 16] = [
    "furious",
    "sly",
    "careful",
    "blithe",
    "quick",
    "fluffy",
    "slow",
    "quiet",
    "ruthless",
    "thin",
    "close",
    "dogged",
    "daring",
    "brave",
    "stealthy",
    "permanent",
];

/// Day numbers: 1992-01-01 is day 0.
const START: i64 = 0;
/// 1998-12-31 - 151 days: the last order date the specification allows.
const LAST_ORDER: i64 = 2405;
/// 1995-06-17: the "current date" that decides return flags and line status.
const CURRENT: i64 = 1263;

/// The schema: one statement per table, with the indexes usual for TPC-H on
/// MySQL (primary keys and the join columns).
pub const DDL: &[&str] = &[
    "create table region (r_regionkey int primary key, r_name char(25) not null, \
     r_comment varchar(152))",
    "create table nation (n_nationkey int primary key, n_name char(25) not null, \
     n_regionkey int not null, n_comment varchar(152), key (n_regionkey))",
    "create table supplier (s_suppkey int primary key, s_name char(25) not null, \
     s_address varchar(40) not null, s_nationkey int not null, s_phone char(15) not null, \
     s_acctbal decimal(15,2) not null, s_comment varchar(101) not null, key (s_nationkey))",
    "create table part (p_partkey int primary key, p_name varchar(55) not null, \
     p_mfgr char(25) not null, p_brand char(10) not null, p_type varchar(25) not null, \
     p_size int not null, p_container char(10) not null, p_retailprice decimal(15,2) not null, \
     p_comment varchar(23) not null)",
    "create table partsupp (ps_partkey int not null, ps_suppkey int not null, \
     ps_availqty int not null, ps_supplycost decimal(15,2) not null, \
     ps_comment varchar(199) not null, primary key (ps_partkey, ps_suppkey), key (ps_suppkey))",
    "create table customer (c_custkey int primary key, c_name varchar(25) not null, \
     c_address varchar(40) not null, c_nationkey int not null, c_phone char(15) not null, \
     c_acctbal decimal(15,2) not null, c_mktsegment char(10) not null, \
     c_comment varchar(117) not null, key (c_nationkey))",
    "create table orders (o_orderkey int primary key, o_custkey int not null, \
     o_orderstatus char(1) not null, o_totalprice decimal(15,2) not null, \
     o_orderdate date not null, o_orderpriority char(15) not null, o_clerk char(15) not null, \
     o_shippriority int not null, o_comment varchar(79) not null, key (o_custkey), \
     key (o_orderdate))",
    "create table lineitem (l_orderkey int not null, l_partkey int not null, \
     l_suppkey int not null, l_linenumber int not null, l_quantity decimal(15,2) not null, \
     l_extendedprice decimal(15,2) not null, l_discount decimal(15,2) not null, \
     l_tax decimal(15,2) not null, l_returnflag char(1) not null, \
     l_linestatus char(1) not null, l_shipdate date not null, l_commitdate date not null, \
     l_receiptdate date not null, l_shipinstruct char(25) not null, \
     l_shipmode char(10) not null, l_comment varchar(44) not null, \
     primary key (l_orderkey, l_linenumber), key (l_shipdate), key (l_suppkey), \
     key (l_partkey))",
];

/// A small fixed-seed generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.range(0, from.len() as i64 - 1) as usize]
    }

    fn words(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| self.pick(&WORDS))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Table sizes at scale factor `sf`.
pub struct Sizes {
    pub supplier: i64,
    pub part: i64,
    pub customer: i64,
    pub orders: i64,
}

impl Sizes {
    pub fn at(sf: f64) -> Sizes {
        let n = |base: f64| ((base * sf).round() as i64).max(1);
        Sizes {
            supplier: n(10_000.0),
            part: n(200_000.0),
            customer: n(150_000.0),
            orders: n(1_500_000.0),
        }
    }
}

/// `YYYY-MM-DD` of day `d` (day 0 = 1992-01-01).
pub fn date(d: i64) -> String {
    // Days since 1970-01-01, then Howard Hinnant's civil-from-days.
    let z = d + 8035 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Cents as a DECIMAL literal.
fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", cents.abs() / 100, cents.abs() % 100)
}

/// Emits INSERT statements of `rows` (each a parenthesised tuple) for `table`.
fn batches(
    table: &str,
    rows: Vec<String>,
    out: &mut dyn FnMut(String) -> Result<(), String>,
) -> Result<(), String> {
    for chunk in rows.chunks(BATCH) {
        out(format!("insert into {table} values {}", chunk.join(",")))?;
    }
    Ok(())
}

/// The retail price of part `p`, in cents (the specification's formula).
fn retail_cents(p: i64) -> i64 {
    90_000 + (p / 10) % 20_001 + 100 * (p % 1_000)
}

/// Generates every table at scale factor `sf`, handing each statement to `out`.
pub fn generate(sf: f64, out: &mut dyn FnMut(String) -> Result<(), String>) -> Result<(), String> {
    let s = Sizes::at(sf);
    let mut rng = Rng::new(0x7c3d_1f2a);
    let regions = (0..5)
        .map(|r| format!("({r},'{}','{}')", REGIONS[r], rng.words(3)))
        .collect();
    batches("region", regions, out)?;
    let nations = NATIONS
        .iter()
        .enumerate()
        .map(|(n, (name, r))| format!("({n},'{name}',{r},'{}')", rng.words(4)))
        .collect();
    batches("nation", nations, out)?;
    let suppliers = (1..=s.supplier)
        .map(|k| {
            let nation = rng.range(0, 24);
            format!(
                "({k},'Supplier#{k:09}','{}',{nation},'{}-{}-{}-{}',{},'{}')",
                rng.words(2),
                nation + 10,
                rng.range(100, 999),
                rng.range(100, 999),
                rng.range(1000, 9999),
                money(rng.range(-99_999, 999_999)),
                rng.words(4)
            )
        })
        .collect();
    batches("supplier", suppliers, out)?;
    parts(&s, &mut rng, out)?;
    customers(&s, &mut rng, out)?;
    orders(&s, &mut rng, out)
}

fn parts(
    s: &Sizes,
    rng: &mut Rng,
    out: &mut dyn FnMut(String) -> Result<(), String>,
) -> Result<(), String> {
    let mut parts = Vec::new();
    let mut supplies = Vec::new();
    for p in 1..=s.part {
        let m = rng.range(1, 5);
        parts.push(format!(
            "({p},'{}','Manufacturer#{m}','Brand#{m}{}','{} BRUSHED TIN',{},'SM BOX',{},'{}')",
            rng.words(3),
            rng.range(1, 5),
            rng.pick(&["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"]),
            rng.range(1, 50),
            money(retail_cents(p)),
            rng.words(2)
        ));
        for i in 0..4 {
            let supp = (p + i * (s.supplier / 4 + (p - 1) / s.supplier)) % s.supplier + 1;
            supplies.push(format!(
                "({p},{supp},{},{},'{}')",
                rng.range(1, 9999),
                money(rng.range(100, 100_000)),
                rng.words(5)
            ));
        }
    }
    batches("part", parts, out)?;
    batches("partsupp", supplies, out)
}

fn customers(
    s: &Sizes,
    rng: &mut Rng,
    out: &mut dyn FnMut(String) -> Result<(), String>,
) -> Result<(), String> {
    let rows = (1..=s.customer)
        .map(|k| {
            let nation = rng.range(0, 24);
            format!(
                "({k},'Customer#{k:09}','{}',{nation},'{}-{}-{}-{}',{},'{}','{}')",
                rng.words(2),
                nation + 10,
                rng.range(100, 999),
                rng.range(100, 999),
                rng.range(1000, 9999),
                money(rng.range(-99_999, 999_999)),
                rng.pick(&SEGMENTS),
                rng.words(5)
            )
        })
        .collect();
    batches("customer", rows, out)
}

/// Orders and their line items, a batch of orders at a time.
fn orders(
    s: &Sizes,
    rng: &mut Rng,
    out: &mut dyn FnMut(String) -> Result<(), String>,
) -> Result<(), String> {
    let mut orders = Vec::with_capacity(BATCH);
    let mut lines = Vec::with_capacity(BATCH * 4);
    for i in 1..=s.orders {
        // Order keys are sparse, as the specification's (8 of every 32 used).
        let key = (i - 1) / 8 * 32 + (i - 1) % 8 + 1;
        // Customers whose key is divisible by 3 place no orders.
        let mut cust = rng.range(1, s.customer);
        if cust % 3 == 0 {
            cust = cust % s.customer + 1;
        }
        let day = rng.range(START, LAST_ORDER);
        let n = rng.range(1, 7);
        let mut total = 0i64;
        let mut open = 0;
        for line in 1..=n {
            let part = rng.range(1, s.part);
            let supp =
                (part + (line % 4) * (s.supplier / 4 + (part - 1) / s.supplier)) % s.supplier + 1;
            let qty = rng.range(1, 50);
            let price = qty * retail_cents(part);
            let disc = rng.range(0, 10);
            let tax = rng.range(0, 8);
            let ship = day + rng.range(1, 121);
            let commit = day + rng.range(30, 90);
            let receipt = ship + rng.range(1, 30);
            let flag = if receipt <= CURRENT {
                if rng.range(0, 1) == 0 {
                    "R"
                } else {
                    "A"
                }
            } else {
                "N"
            };
            let status = if ship > CURRENT { "O" } else { "F" };
            open += usize::from(status == "O");
            total += price * (100 - disc) / 100 * (100 + tax) / 100;
            lines.push(format!(
                "({key},{part},{supp},{line},{qty}.00,{},0.{disc:02},0.{tax:02},'{flag}','{status}',\
                 '{}','{}','{}','{}','{}','{}')",
                money(price),
                date(ship),
                date(commit),
                date(receipt),
                rng.pick(&INSTRUCTS),
                rng.pick(&MODES),
                rng.words(3)
            ));
        }
        let status = match open {
            0 => "F",
            k if k as i64 == n => "O",
            _ => "P",
        };
        orders.push(format!(
            "({key},{cust},'{status}',{},'{}','{}','Clerk#{:09}',0,'{}')",
            money(total),
            date(day),
            rng.pick(&PRIORITIES),
            rng.range(1, 1000),
            rng.words(4)
        ));
        if orders.len() == BATCH {
            batches("orders", std::mem::take(&mut orders), out)?;
            batches("lineitem", std::mem::take(&mut lines), out)?;
        }
    }
    batches("orders", orders, out)?;
    batches("lineitem", lines, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_from_1992() {
        assert_eq!(date(0), "1992-01-01");
        assert_eq!(date(59), "1992-02-29");
        assert_eq!(date(CURRENT), "1995-06-17");
        assert_eq!(date(LAST_ORDER), "1998-08-02");
    }

    #[test]
    fn a_small_scale_has_the_specified_shape() {
        let mut stmts = Vec::new();
        generate(0.001, &mut |s| {
            stmts.push(s);
            Ok(())
        })
        .expect("generate");
        let count = |t: &str| {
            stmts
                .iter()
                .filter(|s| s.starts_with(&format!("insert into {t} ")))
                .map(|s| s.matches("),(").count() + 1)
                .sum::<usize>()
        };
        assert_eq!(count("region"), 5);
        assert_eq!(count("nation"), 25);
        assert_eq!(count("supplier"), 10);
        assert_eq!(count("part"), 200);
        assert_eq!(count("partsupp"), 800);
        assert_eq!(count("customer"), 150);
        assert_eq!(count("orders"), 1500);
        let lines = count("lineitem");
        assert!((1500..=10_500).contains(&lines), "{lines}");
    }
}
