//! The Redis model served over TCP for the tests that talk to it as a client would
//! (`model` busy scripts, `model_differential`, `model_memory`): one copy of the start-up.

use amnesia::internal::model::{Model, ModelClock, ModelConfig};
use std::net::{Ipv4Addr, TcpListener};

/// Serve a fresh model on a free loopback port from a background thread, which ends when
/// `serve_tcp` returns (SHUTDOWN NOSAVE).
pub fn start_model() -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    let port = listener.local_addr().expect("local addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let server = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
            let model = Model::new(ModelConfig::default(), ModelClock::system());
            model.serve_tcp(listener).await.expect("model serves");
        });
    });
    (port, server)
}
