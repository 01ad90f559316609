//! A server (Redis, PostgreSQL) in a container, through testcontainers, on the engine
//! `DOCKER_HOST` names (else the local socket). The container's port is published on
//! 127.0.0.1 only; it carries amnesia's labels with the owning process's id and start
//! time, so the sweep at every start (`owner.rs`) removes what a killed run left behind;
//! a guard removes it when the run ends, however it ends.

use crate::real::owner::{Owner, Whose};
use crate::real::server::{RealError, Server};
use std::net::SocketAddr;
use testcontainers::bollard::models::{ContainerSummaryStateEnum, HostConfig, PortBinding};
use testcontainers::core::{IntoContainerPort, WaitFor};
use testcontainers::runners::AsyncRunner;
use testcontainers::{ContainerAsync, GenericImage, ImageExt};

/// Every container of amnesia's carries this label (value `real-tier`).
pub const LABEL: &str = "dev.amnesia";
/// The id of the process that started the container.
pub const OWNER_LABEL: &str = "dev.amnesia.owner-pid";
/// That process's start time (clock ticks after boot), so a reused pid is not its owner.
const OWNER_START_LABEL: &str = "dev.amnesia.owner-start";
/// What a server's container runs and how it says it is ready.
pub(crate) struct ContainerSpec<'a> {
    /// `name:tag`.
    pub image: &'a str,
    /// The port the server listens on inside the container.
    pub port: u16,
    /// The arguments after the image's entrypoint.
    pub cmd: Vec<String>,
    /// What the server logs once it serves clients.
    pub ready_line: &'static str,
    /// The ready line is on stderr (PostgreSQL) rather than stdout (Redis).
    pub ready_on_stderr: bool,
    /// The image this spec needs and the script that builds it offline, for the
    /// missing-image error.
    pub build_hint: &'static str,
}

/// A server's container.
pub(crate) struct DockerServer {
    /// `None` once removed. A tokio mutex: a fault's docker call holds it across awaits.
    container: tokio::sync::Mutex<Option<ContainerAsync<GenericImage>>>,
    /// The server's port inside the container.
    port: u16,
}

impl DockerServer {
    /// Start `spec`'s image; fails with an environment error when no Docker engine
    /// answers or the image is missing.
    pub(crate) async fn start(spec: ContainerSpec<'_>) -> Result<DockerServer, RealError> {
        let docker = preflight(spec.image, spec.build_hint).await?;
        remove_containers(&docker, Whose::Dead).await;
        let image = spec.image;
        let (name, tag) = image.rsplit_once(':').unwrap_or((image, "latest"));
        let ready = if spec.ready_on_stderr {
            WaitFor::message_on_stderr(spec.ready_line)
        } else {
            WaitFor::message_on_stdout(spec.ready_line)
        };
        let port = spec.port;
        let owner = Owner::current();
        let request = GenericImage::new(name, tag)
            .with_exposed_port(port.tcp())
            .with_wait_for(ready)
            .with_cmd(spec.cmd)
            .with_label(LABEL, "real-tier")
            .with_label(OWNER_LABEL, owner.pid.to_string())
            .with_label(OWNER_START_LABEL, owner.start_ticks.to_string())
            .with_host_config_modifier(move |host| publish_on_loopback(host, port));
        let container = request
            .start()
            .await
            .map_err(|e| RealError::Server(format!("cannot start {image}: {e}")))?;
        Ok(DockerServer {
            container: tokio::sync::Mutex::new(Some(container)),
            port,
        })
    }
}

const REMOVED: &str = "the container was removed";

/// Publish the server's `port` on 127.0.0.1 only, on a port the engine picks.
fn publish_on_loopback(host: &mut HostConfig, port: u16) {
    let binding = PortBinding {
        host_ip: Some("127.0.0.1".into()),
        host_port: None,
    };
    let bindings = [(format!("{port}/tcp"), Some(vec![binding]))];
    host.publish_all_ports = Some(false);
    host.port_bindings = Some(bindings.into_iter().collect());
}

fn server_error(what: &str) -> impl Fn(testcontainers::TestcontainersError) -> RealError + '_ {
    move |e| RealError::Server(format!("docker {what} failed: {e}"))
}

#[async_trait::async_trait]
impl Server for DockerServer {
    async fn address(&self) -> Result<SocketAddr, RealError> {
        let guard = self.container.lock().await;
        let container = guard.as_ref().ok_or(RealError::Server(REMOVED.into()))?;
        let port = container
            .get_host_port_ipv4(self.port)
            .await
            .map_err(server_error("port"))?;
        Ok(SocketAddr::from(([127, 0, 0, 1], port)))
    }

    async fn kill(&self) -> Result<(), RealError> {
        let guard = self.container.lock().await;
        let container = guard.as_ref().ok_or(RealError::Server(REMOVED.into()))?;
        // No grace period: the engine sends SIGKILL at once.
        container
            .stop_with_timeout(Some(0))
            .await
            .map_err(server_error("kill"))
    }

    async fn start_again(&self) -> Result<(), RealError> {
        let guard = self.container.lock().await;
        let container = guard.as_ref().ok_or(RealError::Server(REMOVED.into()))?;
        container.start().await.map_err(server_error("start"))
    }

    async fn set_paused(&self, paused: bool) -> Result<(), RealError> {
        let guard = self.container.lock().await;
        let container = guard.as_ref().ok_or(RealError::Server(REMOVED.into()))?;
        if paused {
            container.pause().await.map_err(server_error("pause"))
        } else {
            container.unpause().await.map_err(server_error("unpause"))
        }
    }

    async fn remove(&self) {
        let container = self.container.lock().await.take();
        if let Some(container) = container {
            let _ = container.rm().await;
        }
    }
}

impl Drop for DockerServer {
    /// A run that panicked: testcontainers removes the container on drop, which needs a
    /// runtime; outside one, a small one of its own.
    fn drop(&mut self) {
        let Some(container) = self.container.get_mut().take() else {
            return;
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            drop(container);
            return;
        }
        if let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            runtime.block_on(async move { drop(container) });
        }
    }
}

/// The local Docker engine, if one answers and has `image` (`build_hint` says how to
/// build it offline).
pub(crate) async fn preflight(
    image: &str,
    build_hint: &str,
) -> Result<testcontainers::bollard::Docker, RealError> {
    let docker = engine().await?;
    if docker.inspect_image(image).await.is_err() {
        return Err(RealError::Environment(format!(
            "the image {image} is not on the Docker engine: {build_hint}"
        )));
    }
    Ok(docker)
}

/// The Docker engine `DOCKER_HOST` names (a unix socket, or `tcp://`), else the local
/// socket: the same one testcontainers then runs the containers on.
pub(crate) async fn engine() -> Result<testcontainers::bollard::Docker, RealError> {
    let host = std::env::var("DOCKER_HOST")
        .ok()
        .filter(|host| !host.is_empty());
    let missing = |e: &dyn std::fmt::Display| {
        let at = host
            .as_ref()
            .map_or(String::new(), |host| format!(" at DOCKER_HOST={host}"));
        RealError::Environment(format!(
            "no Docker engine answers{at} ({e}): install docker.io and start dockerd (or \
             scripts/setup), fix DOCKER_HOST, or run a local server with \
             AMNESIA_REAL_PROVIDER=process"
        ))
    };
    let docker =
        testcontainers::bollard::Docker::connect_with_defaults().map_err(|e| missing(&e))?;
    docker.ping().await.map_err(|e| missing(&e))?;
    Ok(docker)
}

/// Remove amnesia's containers of `whose` owners, unpaused first (a run interrupted while
/// its server was paused); containers of other live runs are left alone. Returns how
/// many were removed.
pub(crate) async fn remove_containers(
    docker: &testcontainers::bollard::Docker,
    whose: Whose,
) -> usize {
    use testcontainers::bollard::query_parameters::{
        ListContainersOptionsBuilder, RemoveContainerOptionsBuilder,
    };
    let filters = std::collections::HashMap::from([("label", vec![LABEL])]);
    let options = ListContainersOptionsBuilder::default()
        .all(true)
        .filters(&filters)
        .build();
    let Ok(containers) = docker.list_containers(Some(options)).await else {
        return 0;
    };
    let mut removed = 0;
    for container in containers {
        // Only containers a run started (they name their owner).
        let Some(owner) = container.labels.as_ref().and_then(owner_of) else {
            continue;
        };
        let Some(id) = container.id.filter(|_| whose.takes(owner)) else {
            continue;
        };
        if container.state == Some(ContainerSummaryStateEnum::PAUSED) {
            let _ = docker.unpause_container(&id).await;
        }
        let force = RemoveContainerOptionsBuilder::default().force(true).build();
        if docker.remove_container(&id, Some(force)).await.is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The owner a container's labels name (a start time of 0 when it has none).
fn owner_of(labels: &std::collections::HashMap<String, String>) -> Option<Owner> {
    let pid = labels.get(OWNER_LABEL)?.parse().ok()?;
    let start_ticks = labels
        .get(OWNER_START_LABEL)
        .and_then(|ticks| ticks.parse().ok())
        .unwrap_or(0);
    Some(Owner { pid, start_ticks })
}
