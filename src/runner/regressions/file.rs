//! The regression corpus's file, `amnesia-regressions/<test or store>.txt`: a comment
//! header telling the reader to commit it, then one entry per line, sorted, each a seed
//! and what regenerates its run (`seed=3 store=write-behind scenario=standard
//! engine=event plan=5f0c…  # lost`). Read, merged with new entries, and written only when an entry is
//! new; the same entries always give the same bytes (no timestamps, a fixed order).

use crate::runner::sweep::{SeedResult, SweepConfig};
use crate::runner::text::class_name;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where the corpus lives unless told otherwise, relative to the crate (a test) or the
/// working directory (the command line).
pub const DIR_DEFAULT: &str = "amnesia-regressions";

/// The grammar of an entry's line, for the error of a line that does not follow it.
const LINE_GRAMMAR: &str = "seed=N store=NAME scenario=NAME engine=NAME plan=HEX  # comment";

/// One remembered failing seed: what regenerates its plan exactly, and why it is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The store's label: two tests of one name in two test binaries share a file, and
    /// an entry replays only with the store that failed it.
    pub store: String,
    /// The scenario's name (a built-in's, or the test's own scenario's).
    pub scenario: String,
    /// The engine's name, as `--engine` takes it.
    pub engine: String,
    /// The seed.
    pub seed: u64,
    /// FNV-1a of the plan's JSON when the entry was written: a later run that generates
    /// another plan from the same seed (the scenario's knobs or the generator changed)
    /// says so instead of passing for the wrong reason unnoticed.
    pub plan_hash: u64,
    /// What the seed failed with (`lost, duplicate`), for the reviewer.
    pub comment: String,
}

/// A corpus file that cannot be read or written: one line, naming the file (and the line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CorpusError(pub String);

/// The entries of one test's or one store's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    /// The file (it may not exist yet).
    pub path: PathBuf,
    /// The test or store it belongs to, as the header names it.
    pub owner: String,
    /// The entries, sorted by store, scenario, engine and seed, without duplicates.
    pub entries: Vec<Entry>,
}

impl Entry {
    /// The entry of a failing `result` of `config`'s sweep.
    pub fn of(result: &SeedResult, config: &SweepConfig) -> Entry {
        let plan = crate::plan::Plan::generate(result.seed, &config.scenario);
        let mut why: Vec<String> = result.classes.iter().map(|c| class_name(*c)).collect();
        if why.is_empty() || result.status != crate::runner::sweep::SeedStatus::Fail {
            why.insert(0, result.status.name().to_string());
        }
        why.dedup();
        Entry {
            store: config.store.label().to_string(),
            scenario: config.scenario.name.clone(),
            engine: config.engine.name().to_string(),
            seed: result.seed,
            plan_hash: plan_hash(&plan),
            comment: why.join(", "),
        }
    }

    /// What identifies an entry: two lines with the same key are one entry.
    fn key(&self) -> (&str, &str, &str, u64) {
        (&self.store, &self.scenario, &self.engine, self.seed)
    }

    /// The entry's line, without its newline.
    pub fn line(&self) -> String {
        let line = format!(
            "seed={} store={} scenario={} engine={} plan={:016x}",
            self.seed,
            escape(&self.store),
            escape(&self.scenario),
            escape(&self.engine),
            self.plan_hash
        );
        match self.comment.lines().next().unwrap_or("").trim() {
            "" => line,
            comment => format!("{line}  # {comment}"),
        }
    }

    /// Read one entry's line (`None`: a blank or comment line).
    fn parse(line: &str) -> Result<Option<Entry>, String> {
        let (fields, comment) = line.split_once('#').unwrap_or((line, ""));
        let mut words = fields.split_whitespace();
        let Some(first) = words.next() else {
            return Ok(None);
        };
        let value = |word: Option<&str>, key: &str| -> Result<String, String> {
            let word = word.ok_or_else(|| format!("no {key}="))?;
            let raw = word
                .strip_prefix(key)
                .and_then(|w| w.strip_prefix('='))
                .ok_or_else(|| format!("'{word}' is not {key}=…"))?;
            unescape(raw).ok_or_else(|| format!("'{word}' has a bad %-escape"))
        };
        let seed = value(Some(first), "seed")?;
        let seed = seed
            .parse()
            .map_err(|_| format!("seed '{seed}' is no u64"))?;
        let store = value(words.next(), "store")?;
        let scenario = value(words.next(), "scenario")?;
        let engine = value(words.next(), "engine")?;
        let plan = value(words.next(), "plan")?;
        let plan_hash = u64::from_str_radix(&plan, 16)
            .ok()
            .filter(|_| plan.len() == 16)
            .ok_or_else(|| format!("plan '{plan}' is not 16 hex digits"))?;
        if let Some(extra) = words.next() {
            return Err(format!("'{extra}' follows the plan"));
        }
        Ok(Some(Entry {
            store,
            scenario,
            engine,
            seed,
            plan_hash,
            comment: comment.trim().to_string(),
        }))
    }
}

/// The fingerprint an entry keeps of its plan.
pub fn plan_hash(plan: &crate::plan::Plan) -> u64 {
    crate::trace::fnv1a(plan.to_json_pretty().as_bytes())
}

/// The entries a sweep's failing `results` add: the lowest failing seed of each class
/// (and of each failing status without one), so that the file grows by what is new to
/// the run rather than by every seed of one bug (181 seeds of one boundary bug teach
/// nothing the first does not).
pub fn entries_of(results: &[SeedResult], config: &SweepConfig) -> Vec<Entry> {
    let mut covered = BTreeSet::new();
    let mut entries = Vec::new();
    for result in results.iter().filter(|r| !r.is_pass()) {
        let mut reasons: Vec<String> = result.classes.iter().map(|c| class_name(*c)).collect();
        reasons.push(result.status.name().to_string());
        let mut new = false;
        for reason in reasons {
            new |= covered.insert(reason);
        }
        if new {
            entries.push(Entry::of(result, config));
        }
    }
    entries
}

impl Corpus {
    /// The file of `owner` (a test's or a store's name) in `dir`.
    pub fn path_in(dir: &Path, owner: &str) -> PathBuf {
        dir.join(format!("{}.txt", file_stem(owner)))
    }

    /// A corpus of `entries` (sorted and deduplicated here) in the file at `path`.
    pub fn new(path: PathBuf, owner: &str, entries: Vec<Entry>) -> Corpus {
        let mut corpus = Corpus {
            path,
            owner: owner.to_string(),
            entries,
        };
        corpus.normalize();
        corpus
    }

    /// The corpus of `owner` in `dir`: empty when the file does not exist; a file that
    /// cannot be read or parsed is an error naming it and the line.
    pub fn load(dir: &Path, owner: &str) -> Result<Corpus, CorpusError> {
        let path = Corpus::path_in(dir, owner);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => {
                return Err(CorpusError(format!(
                    "regression file {} unreadable: {e}",
                    path.display()
                )))
            }
        };
        let mut corpus = Corpus {
            path,
            owner: owner.to_string(),
            entries: Vec::new(),
        };
        for (index, line) in text.lines().enumerate() {
            match Entry::parse(line) {
                Ok(Some(entry)) => corpus.entries.push(entry),
                Ok(None) => {}
                Err(why) => {
                    return Err(CorpusError(format!(
                        "regression file {}:{} is corrupt: {why} (an entry reads `{LINE_GRAMMAR}`; \
                         fix or delete the line)",
                        corpus.path.display(),
                        index + 1
                    )))
                }
            }
        }
        corpus.normalize();
        Ok(corpus)
    }

    /// Sort the entries and keep the first of each key.
    fn normalize(&mut self) {
        self.entries.sort_by(|a, b| a.key().cmp(&b.key()));
        self.entries.dedup_by(|b, a| a.key() == b.key());
    }

    /// The file's text: the header, then one line per entry.
    pub fn text(&self) -> String {
        let mut text = format!(
            "# amnesia regression corpus of {}: seeds that failed, kept after the bug is fixed.\n\
             # Every run replays each entry before its seed range; one that fails again fails the run.\n\
             # Commit this file. amnesia adds the new failing seeds and rewrites these comment lines;\n\
             # delete an entry's line to forget it. An entry: `{LINE_GRAMMAR}`.\n",
            self.owner
        );
        for entry in &self.entries {
            text.push_str(&entry.line());
            text.push('\n');
        }
        text
    }

    /// Add `entries`; when one is new, write the file (its directory created) and return
    /// the new ones. Nothing new: nothing written, an empty list.
    pub fn record(&mut self, entries: Vec<Entry>) -> Result<Vec<Entry>, CorpusError> {
        let mut added: Vec<Entry> = entries
            .into_iter()
            .filter(|new| self.entries.iter().all(|known| known.key() != new.key()))
            .collect();
        added.sort_by(|a, b| a.key().cmp(&b.key()));
        added.dedup_by(|b, a| a.key() == b.key());
        if added.is_empty() {
            return Ok(added);
        }
        self.entries.extend(added.iter().cloned());
        self.normalize();
        self.write()?;
        Ok(added)
    }

    /// Write the file whole: a temporary beside it, renamed over it, so that a reader
    /// never sees half a file.
    fn write(&self) -> Result<(), CorpusError> {
        let failed = |e: std::io::Error| {
            CorpusError(format!(
                "regression file {} not written: {e}",
                self.path.display()
            ))
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(failed)?;
        }
        let partial = self.path.with_extension("txt.partial");
        std::fs::write(&partial, self.text()).map_err(failed)?;
        std::fs::rename(&partial, &self.path).map_err(failed)
    }
}

/// `owner` as a file name: ASCII letters, digits, `-` and `_`; anything else `-`
/// (a test's `module::name` becomes `module--name`).
pub fn file_stem(owner: &str) -> String {
    owner
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// A name as one word of a line (a user's store or scenario may be called anything):
/// `%`, `#`, `=`, whitespace and control characters as
/// `%XX`.
fn escape(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c == '%' || c == '#' || c == '=' || c.is_whitespace() || c.is_control() {
            let mut bytes = [0u8; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    if out.is_empty() {
        out.push_str("%00");
    }
    out
}

/// [`escape`] undone; `None` for a malformed escape.
fn unescape(word: &str) -> Option<String> {
    if word == "%00" {
        return Some(String::new());
    }
    let mut bytes = Vec::with_capacity(word.len());
    let mut rest = word.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::{escape, unescape, Corpus, Entry};

    fn entry(seed: u64, scenario: &str) -> Entry {
        Entry {
            store: "my store".into(),
            scenario: scenario.into(),
            engine: "event".into(),
            seed,
            plan_hash: 0x0123_4567_89ab_cdef,
            comment: "lost".into(),
        }
    }

    #[test]
    fn a_line_reads_back_as_the_entry() {
        for name in ["standard", "my scenario #2 = 100%", "", "日本"] {
            assert_eq!(unescape(&escape(name)).as_deref(), Some(name));
            let e = entry(7, name);
            assert_eq!(Entry::parse(&e.line()), Ok(Some(e.clone())), "{}", e.line());
        }
        assert_eq!(Entry::parse("  # a comment"), Ok(None));
        assert_eq!(Entry::parse(""), Ok(None));
    }

    #[test]
    fn corrupt_lines_are_one_line_errors_and_never_panics() {
        let dir = std::env::temp_dir().join(format!("amnesia-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for bad in [
            "seed=x store=s scenario=a engine=event plan=0123456789abcdef",
            "seed=1 store=s scenario=a engine=event",
            "seed=1 store=s scenario=a engine=event plan=12",
            "seed=1 store=s scenario=%G engine=event plan=0123456789abcdef",
            "seed=1 store=s scenario=a engine=event plan=0123456789abcdef extra",
            "1 2 3",
            "seed=1 scenario=a store=s engine=event plan=0123456789abcdef",
        ] {
            std::fs::write(Corpus::path_in(&dir, "t"), format!("# header\n{bad}\n")).unwrap();
            let error = Corpus::load(&dir, "t").unwrap_err().0;
            assert!(error.contains("t.txt:2 is corrupt: "), "{error}");
            assert_eq!(error.lines().count(), 1, "{error}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn recording_sorts_dedups_and_writes_only_what_is_new() {
        let dir = std::env::temp_dir().join(format!("amnesia-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut corpus = Corpus::load(&dir, "a::b").unwrap();
        assert!(corpus.path.ends_with("a--b.txt"));
        let added = corpus.record(vec![entry(9, "s"), entry(2, "s"), entry(9, "s")]);
        assert_eq!(added.unwrap().len(), 2);
        let text = std::fs::read_to_string(&corpus.path).unwrap();
        assert!(text.find("seed=2 ").unwrap() < text.find("seed=9 ").unwrap());
        std::fs::remove_file(&corpus.path).unwrap();
        assert_eq!(corpus.record(vec![entry(2, "s")]), Ok(Vec::new()));
        assert!(!corpus.path.exists(), "nothing new: nothing written");
        assert_eq!(Corpus::load(&dir, "a::b").unwrap().entries, Vec::new());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
