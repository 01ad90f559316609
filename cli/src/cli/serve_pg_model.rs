//! `amnesia serve-pg-model --port P`: the PostgreSQL model (with pgvector) on
//! 127.0.0.1:P with the real clock, for `psql` or any client: user `amnesia`, database
//! `postgres`, trust authentication, an empty server.

use crate::cli::{CliError, EXIT_PASS};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Port on 127.0.0.1 (0 picks a free one and prints it).
    #[arg(long)]
    port: u16,
    /// The seed the vector indexes draw their levels and centroids from.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

pub fn run(args: Args) -> Result<u8, CliError> {
    // Threads of its own: a running statement must not keep cancel requests and new
    // connections from being read.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::Environment(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], args.port));
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| CliError::Environment(format!("cannot listen on {address}: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| CliError::Environment(e.to_string()))?;
        println!(
            "amnesia PostgreSQL model (PostgreSQL 18.3, pgvector 0.8 semantics) listening on \
             {bound}: psql -h 127.0.0.1 -p {} -U amnesia postgres",
            bound.port()
        );
        amnesia::internal::pg::serve_tcp(listener, args.seed)
            .await
            .map_err(|e| CliError::Environment(format!("accept failed: {e}")))?;
        Ok(EXIT_PASS)
    })
}
