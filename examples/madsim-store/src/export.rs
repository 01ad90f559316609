//! The team's export of a conversation to a JSON-lines file, on fs-err 3 (whose tokio
//! `File::create_new` is tokio 1.38's) and tokio-stream's current release: the two crates
//! that kept stores off the madsim engine while its tokio was 1.37. Outside a simulation
//! it writes the file; inside one, `tokio::fs` refuses and the error names the simulation
//! (`tests/madsim.rs` checks both).

use crate::Entry;
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;
use tokio_stream::StreamExt;

/// Write `entries` to a new `<conversation>.jsonl` in `dir`, one entry a line; an existing
/// export is never overwritten (`create_new`).
pub async fn export(
    dir: &Path,
    conversation: &str,
    entries: Vec<Entry>,
) -> std::io::Result<PathBuf> {
    let path = dir.join(format!("{conversation}.jsonl"));
    let mut file = fs_err::tokio::File::create_new(&path).await?;
    let mut lines = tokio_stream::iter(entries).map(|entry| {
        let mut line = serde_json::to_vec(&entry).expect("an entry always serializes");
        line.push(b'\n');
        line
    });
    while let Some(line) = lines.next().await {
        file.write_all(&line).await?;
    }
    file.flush().await?;
    Ok(path)
}
