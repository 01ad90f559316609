//! Seeded random step sequences (ChaCha8 from a u64 seed, no OS randomness) over a fixed
//! schema, three connections and a key space of three keys, so transactions conflict:
//! BEGIN (READ COMMITTED or REPEATABLE READ), COMMIT, ROLLBACK, upserts (DO UPDATE, DO
//! NOTHING), plain inserts that may violate the key, UPDATE, DELETE (one with NOT
//! EXISTS), a quarter of the writes with bound parameters (the extended protocol),
//! SELECT … ORDER BY, joins, EXISTS, ARRAY(SELECT …), count(*), advisory locks, and
//! statements that fail.
//!
//! The generator reads which connections have a statement pending (on either target)
//! before each step, and keeps every wait resolvable and deadlocks out: it schedules no
//! step on a blocked connection, and while any connection is blocked it schedules only
//! statements that never wait (reads, transaction control, try-locks, failures), so at
//! most one connection waits at a time and whoever it waits on can always COMMIT.
//! Session advisory locks (try-lock, unlock) use keys 10 and 11, transaction locks keys
//! 1 and 2: a session lock never blocks anyone. At the end every connection COMMITs or
//! ROLLs BACK and each table is dumped in order.

use super::target::Target;
use super::types::Param;
use super::{Pair, Step, Tally, CONNECTIONS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const KEYS: [&str; 3] = ["a", "b", "c"];

/// The schema every sequence starts from (on connection 1).
const SETUP: [&str; 3] = [
    "CREATE TABLE kv (k text PRIMARY KEY, v int8 NOT NULL, note text)",
    "CREATE TABLE log (pos bigserial PRIMARY KEY, k text NOT NULL, body bytea)",
    "INSERT INTO kv (k, v) VALUES ('a', 1), ('b', 2)",
];

/// The final dump (on connection 1, after every connection ended its transaction).
const DUMP: [&str; 2] = [
    "SELECT k, v, note FROM kv ORDER BY k",
    "SELECT pos, k, body FROM log ORDER BY pos",
];

/// The steps of one seed, produced one at a time.
pub struct Generator {
    rng: ChaCha8Rng,
    fixed: std::collections::VecDeque<Step>,
    body_left: usize,
    in_tx: [bool; CONNECTIONS],
    ended: [bool; CONNECTIONS],
}

impl Generator {
    /// `body_steps` random steps after the schema, then the ends and the dump.
    pub fn new(seed: u64, body_steps: usize) -> Generator {
        Generator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            fixed: SETUP.iter().map(|sql| Step::simple(1, *sql)).collect(),
            body_left: body_steps,
            in_tx: [false; CONNECTIONS],
            ended: [false; CONNECTIONS],
        }
    }

    /// The next step, given which connections are blocked; `None` once the dump is out.
    pub fn next(&mut self, blocked: &[bool]) -> Option<Step> {
        if let Some(step) = self.fixed.pop_front() {
            return Some(step);
        }
        if self.body_left > 0 {
            self.body_left -= 1;
            return Some(self.body_step(blocked));
        }
        let unended: Vec<usize> = (0..CONNECTIONS).filter(|&c| !self.ended[c]).collect();
        let free = unended.iter().find(|&&c| !blocked[c]);
        let conn = *free.or(unended.first())?;
        self.ended[conn] = true;
        if self.ended.iter().all(|ended| *ended) {
            self.fixed
                .extend(DUMP.iter().map(|sql| Step::simple(1, *sql)));
        }
        let end = if self.rng.random_bool(0.5) {
            "COMMIT"
        } else {
            "ROLLBACK"
        };
        Some(Step::simple(conn + 1, end))
    }

    fn body_step(&mut self, blocked: &[bool]) -> Step {
        let mut free: Vec<usize> = (0..CONNECTIONS).filter(|&c| !blocked[c]).collect();
        if free.is_empty() {
            // Only when the targets disagree on who is blocked: the step then waits.
            free = (0..CONNECTIONS).collect();
        }
        let conn = free[self.rng.random_range(0..free.len())];
        let waiting = blocked.iter().any(|b| *b);
        let control_percent = match (waiting, self.in_tx[conn]) {
            (true, _) => 50,
            (false, true) => 12,
            (false, false) => 30,
        };
        let sql = if self.rng.random_range(0..100) < control_percent {
            self.control(conn)
        } else if waiting || self.rng.random_range(0..100) < 25 {
            self.never_waits()
        } else {
            if self.rng.random_range(0..4) == 0 {
                return self.may_wait_bound(conn);
            }
            self.may_wait()
        };
        Step::simple(conn + 1, sql)
    }

    /// BEGIN (sometimes REPEATABLE READ) outside a transaction, COMMIT or ROLLBACK inside.
    fn control(&mut self, conn: usize) -> String {
        let in_tx = self.in_tx[conn];
        self.in_tx[conn] = !in_tx;
        let roll = self.rng.random_range(0..4);
        match (in_tx, roll) {
            (false, 0) => "BEGIN ISOLATION LEVEL REPEATABLE READ",
            (false, _) => "BEGIN",
            (true, 0) => "ROLLBACK",
            (true, _) => "COMMIT",
        }
        .to_string()
    }

    /// Reads, session try-locks and failures: none waits on a lock.
    fn never_waits(&mut self) -> String {
        let (k, n) = self.key_and_number();
        let lock = 10 + self.rng.random_range(0..2);
        match self.rng.random_range(0..24) {
            20 => "SELECT l.pos, kv.v FROM log l JOIN kv ON kv.k = l.k ORDER BY l.pos".into(),
            21 => "SELECT kv.k, l.pos FROM kv LEFT JOIN log l ON l.k = kv.k".into(),
            22 => "SELECT k FROM kv WHERE EXISTS (SELECT 1 FROM log WHERE log.k = kv.k)".into(),
            23 => "SELECT ARRAY(SELECT k FROM kv ORDER BY k), (SELECT max(pos) FROM log)".into(),
            0..=3 => "SELECT k, v, note FROM kv ORDER BY k".into(),
            4..=6 => format!("SELECT count(*) FROM kv WHERE v > {n}"),
            7 | 8 => "SELECT k, body FROM log ORDER BY pos DESC LIMIT 3".into(),
            9..=11 => format!("SELECT k, v FROM kv WHERE k IN ('a', '{k}')"),
            12..=14 => format!("SELECT pg_try_advisory_lock({lock})"),
            15 | 16 => format!("SELECT pg_advisory_unlock({lock})"),
            17 => format!("INSERT INTO kv (k, v) VALUES ('{k}', NULL)"),
            18 => "SELECT v / 0 FROM kv".into(),
            _ => "SELECT nope FROM kv".into(),
        }
    }

    /// Writes and transaction advisory locks: each may wait on another transaction.
    fn may_wait(&mut self) -> String {
        let (k, n) = self.key_and_number();
        match self.rng.random_range(0..10) {
            0 | 1 => format!(
                "INSERT INTO kv (k, v, note) VALUES ('{k}', {n}, 'n{n}') \
                 ON CONFLICT (k) DO UPDATE SET v = kv.v + EXCLUDED.v RETURNING k, v"
            ),
            2 => format!("INSERT INTO kv (k, v) VALUES ('{k}', {n}) ON CONFLICT (k) DO NOTHING RETURNING k"),
            3 => format!("INSERT INTO kv (k, v) VALUES ('{k}', {n})"),
            4 | 5 => format!("UPDATE kv SET v = v + {n} WHERE k = '{k}' RETURNING k, v"),
            6 => format!("DELETE FROM kv WHERE k = '{k}' RETURNING v"),
            7 => format!("INSERT INTO log (k, body) VALUES ('{k}', '\\x0{n}'::bytea) RETURNING pos"),
            8 => "DELETE FROM log l WHERE NOT EXISTS (SELECT 1 FROM kv WHERE kv.k = l.k) RETURNING pos".into(),
            _ => format!("SELECT pg_advisory_xact_lock({})", 1 + n % 2),
        }
    }

    /// Writes with bound parameters (the extended protocol, as a store's tokio-postgres
    /// `query` sends them).
    fn may_wait_bound(&mut self, conn: usize) -> Step {
        let (k, n) = self.key_and_number();
        let text = |value: &str| Param {
            oid: 25,
            value: Some(value.to_string()),
        };
        let int8 = |value: u32| Param {
            oid: 20,
            value: Some(value.to_string()),
        };
        let (sql, params) = match self.rng.random_range(0..3) {
            0 => (
                "INSERT INTO kv AS t (k, v, note) VALUES ($1, $2, $3) ON CONFLICT (k) \
                 DO UPDATE SET note = COALESCE(t.note, EXCLUDED.note) RETURNING k, v, note",
                vec![text(k), int8(n), text(&format!("b{n}"))],
            ),
            1 => (
                "UPDATE kv SET v = v * $1 WHERE k = $2 RETURNING v",
                vec![int8(n), text(k)],
            ),
            _ => (
                "DELETE FROM kv WHERE k = $1 AND v > $2 RETURNING k",
                vec![text(k), int8(n)],
            ),
        };
        Step {
            params: Some(params),
            ..Step::simple(conn + 1, sql)
        }
    }

    fn key_and_number(&mut self) -> (&'static str, u32) {
        (
            KEYS[self.rng.random_range(0..KEYS.len())],
            self.rng.random_range(1..10),
        )
    }
}

/// Run seed `seed`'s sequence on fresh databases of both targets.
pub async fn run_sequence(a: &dyn Target, b: &dyn Target, seed: u64, body_steps: usize) -> Tally {
    let label = format!("seed {seed}");
    let mut tally = Tally::default();
    let mut pair = match Pair::open(a, b, super::session::WAITS).await {
        Ok(pair) => pair,
        Err(why) => {
            tally.failures.push(format!("{label}: cannot open: {why}"));
            return tally;
        }
    };
    let mut generator = Generator::new(seed, body_steps);
    let mut steps = Vec::new();
    while let Some(step) = generator.next(&pair.blocked()) {
        pair.run(steps.len(), &step).await;
        steps.push(step);
    }
    pair.finish(&label, &steps, &mut tally).await;
    tally
}
