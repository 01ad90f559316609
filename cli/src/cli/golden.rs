//! `amnesia golden [--store NAME] [--k K] [--corpus FILE]`: load the versioned golden
//! corpus of historical memories into a store on a real server, recall every memory by
//! its own text, and report the misses and recall@k against an exact search. Exit 1 when
//! a memory is not found by its own text or recall@k is below `--min-recall`.

use crate::cli::run::any_store_named;
use crate::cli::{CliError, EXIT_PASS, EXIT_VIOLATION};
use amnesia::real::{
    golden_corpus, run_golden, run_golden_on_model, GoldenCorpus, Provider, GOLDEN_K_MAX,
    GOLDEN_VERSION,
};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The store to load the corpus into.
    #[arg(long, default_value = "pgvector-reference")]
    store: String,
    /// How many memories each recall asks for.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=GOLDEN_K_MAX as u64))]
    k: u64,
    /// A corpus file (JSON, as committed under real-tests/golden/); default: the
    /// generated corpus of the current version.
    #[arg(long, value_name = "FILE")]
    corpus: Option<std::path::PathBuf>,
    /// Print the corpus as JSON (the file committed under real-tests/golden/) and exit,
    /// without a server.
    #[arg(long)]
    print_corpus: bool,
    /// The recall@k below which the run fails (exit 1).
    #[arg(long, default_value_t = 0.95)]
    min_recall: f64,
    /// Replay on amnesia's PostgreSQL model (served on 127.0.0.1 for the replay) instead
    /// of a real server: its recall figures beside the real tier's.
    #[arg(long)]
    model: bool,
}

pub fn run(args: Args) -> Result<u8, CliError> {
    amnesia::real::clean_up_on_interrupt()?;
    let store = any_store_named(&args.store)?;
    let corpus = match &args.corpus {
        Some(path) => load(path)?,
        None => golden_corpus(GOLDEN_VERSION),
    };
    if args.print_corpus {
        let json = serde_json::to_string_pretty(&corpus).expect("a corpus serializes");
        crate::cli::emit(&format!("{json}\n"));
        return Ok(EXIT_PASS);
    }
    let (report, server) = match args.model {
        true => (
            run_golden_on_model(&store, &corpus, args.k as usize)?,
            "amnesia's PostgreSQL model".to_string(),
        ),
        false => {
            let provider = Provider::from_env()?;
            provider.check(store.backend())?;
            let report = run_golden(&store, &corpus, args.k as usize, &provider)?;
            (report, provider.describe(store.backend()))
        }
    };
    let missed = &report.own_text_missed;
    let mut out = format!(
        "golden v{} on {} ({}): {} memories, recall by own text missed {}, recall@{} against \
         exact search {:.3}, {} recalls failed\n",
        corpus.version,
        store.label(),
        server,
        report.memories,
        missed.len(),
        report.k,
        report.recall_at_k,
        report.errors
    );
    if !missed.is_empty() {
        let shown: Vec<&str> = missed.iter().take(20).map(String::as_str).collect();
        out.push_str(&format!(
            "  not found by their own text: {}\n",
            shown.join(", ")
        ));
    }
    if report.recall_at_k < args.min_recall {
        out.push_str(&format!(
            "  recall@{} {:.3} is below --min-recall {}\n",
            report.k, report.recall_at_k, args.min_recall
        ));
    }
    crate::cli::emit(&out);
    Ok(
        if missed.is_empty() && report.errors == 0 && report.recall_at_k >= args.min_recall {
            EXIT_PASS
        } else {
            EXIT_VIOLATION
        },
    )
}

fn load(path: &std::path::Path) -> Result<GoldenCorpus, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| CliError::Usage(format!("{} is not a golden corpus: {e}", path.display())))
}
