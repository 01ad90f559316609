//! `amnesia serve-model --port P`: the Redis model on 127.0.0.1:P with the real clock.

use crate::cli::{CliError, EXIT_PASS};
use amnesia::internal::model::{Model, ModelClock, ModelConfig, Persistence};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Port on 127.0.0.1 (0 picks a free one and prints it).
    #[arg(long)]
    port: u16,
    /// `requirepass`: clients must AUTH first.
    #[arg(long)]
    password: Option<String>,
    /// What survives a restart: none, aof-everysec, aof-always.
    #[arg(long, default_value = "none", value_parser = parse_persistence)]
    persistence: Persistence,
}

fn parse_persistence(text: &str) -> Result<Persistence, String> {
    match text {
        "none" => Ok(Persistence::None),
        "aof-everysec" => Ok(Persistence::AofEverysec),
        "aof-always" => Ok(Persistence::AofAlways),
        other => Err(format!(
            "unknown persistence '{other}' (none, aof-everysec, aof-always)"
        )),
    }
}

pub fn run(args: Args) -> Result<u8, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
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
        println!("amnesia model (Redis 7.0 semantics, 7.2's CLIENT SETINFO) listening on {bound}");
        let config = ModelConfig {
            password: args.password,
            persistence: args.persistence,
            // Any client connects here (Jedis, redis-py, go-redis): they send Redis 7.2's
            // `CLIENT SETINFO` at connect, and not all of them ignore an error.
            client_commands_7_2: true,
            ..ModelConfig::default()
        };
        let model = Model::new(config, ModelClock::system());
        model
            .serve_tcp(listener)
            .await
            .map_err(|e| CliError::Environment(format!("accept failed: {e}")))?;
        Ok(EXIT_PASS)
    })
}
