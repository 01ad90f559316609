//! The fault proxy: one listener on 127.0.0.1 per client link, between the client's TCP
//! connections and the real server. Each accepted connection becomes a connection of the
//! link ([`Link::open`]) whose two ends are copied to and from the two sockets: the link's
//! latency, partitions, clogs and resets are the simulator's own code, running on real
//! time instead of virtual time. Between the server end and the server, the relay of
//! `inject.rs` answers injected error replies.

use crate::real::server::Server;
use crate::trace::Trace;
use crate::world::clock::WorldClock;
use crate::world::net::Link;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::io::copy_bidirectional;
use tokio::net::{TcpListener, TcpStream};

/// What every bridged connection shares.
#[derive(Clone)]
pub(crate) struct ProxyWorld {
    pub server: Arc<dyn Server>,
    pub clock: WorldClock,
    pub trace: Trace,
    pub seed: u64,
    /// The error the next data command gets (an `error-reply` fault); `None` for a
    /// server whose protocol the proxy does not speak (PostgreSQL): bytes pass as they are.
    pub pending_error: Option<Arc<crate::real::inject::PendingError>>,
}

/// Listen for `link`'s client on 127.0.0.1; returns the address its dialer connects to.
/// The accept loop runs until the runtime ends.
pub(crate) async fn listen(link: Arc<Link>, world: ProxyWorld) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            tokio::spawn(bridge(link.clone(), client, world.clone()));
        }
    });
    Ok(address)
}

/// Carry one client connection to the server through a connection of `link`, until
/// either side closes or the link resets it.
async fn bridge(link: Arc<Link>, mut client: TcpStream, world: ProxyWorld) {
    let _ = client.set_nodelay(true);
    let redis = match world.server.address().await {
        Ok(address) => TcpStream::connect(address).await,
        Err(error) => Err(std::io::Error::other(error.to_string())),
    };
    let redis = match redis {
        Ok(redis) => redis,
        Err(_) => return reset(client), // refused: a server that is down
    };
    let _ = redis.set_nodelay(true);
    let (mut client_end, server_end) = link.open(&world.clock, &world.trace, world.seed);
    let relay = async move {
        match world.pending_error.clone() {
            Some(pending) => crate::real::inject::relay(server_end, redis, pending).await,
            None => {
                let (mut server_end, mut redis) = (server_end, redis);
                let _ = copy_bidirectional(&mut server_end, &mut redis).await;
            }
        }
    };
    tokio::select! {
        _ = copy_bidirectional(&mut client, &mut client_end) => {}
        () = relay => {}
    }
    reset(client);
}

/// Close `client` with a reset, as the simulator closes both ends of a reset connection.
fn reset(client: TcpStream) {
    let _ = client.set_zero_linger();
    drop(client);
}
