//! The load balancer's gate: a deploy closes it, waits for requests in flight to finish
//! (a graceful drain), swaps the clients' code, and opens it again. Requests that arrive
//! meanwhile wait at the gate, as they would queue at a load balancer.

use tokio::sync::watch;

/// Open/closed state and the number of requests in flight.
pub struct Gate {
    open: watch::Sender<bool>,
    in_flight: watch::Sender<usize>,
}

/// A request in flight; dropping it lets a drain finish.
pub struct Pass<'a> {
    gate: &'a Gate,
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        self.gate.in_flight.send_modify(|n| *n -= 1);
    }
}

impl Default for Gate {
    fn default() -> Self {
        Self {
            open: watch::Sender::new(true),
            in_flight: watch::Sender::new(0),
        }
    }
}

impl Gate {
    /// Wait until the gate is open, then count a request in flight.
    pub async fn enter(&self) -> Pass<'_> {
        let mut open = self.open.subscribe();
        let _ = open.wait_for(|open| *open).await;
        self.in_flight.send_modify(|n| *n += 1);
        Pass { gate: self }
    }

    /// Close the gate and wait until no request is in flight; returns how many were.
    pub async fn close_and_drain(&self) -> usize {
        self.open.send_replace(false);
        let draining = *self.in_flight.borrow();
        let mut in_flight = self.in_flight.subscribe();
        let _ = in_flight.wait_for(|n| *n == 0).await;
        draining
    }

    pub fn open(&self) {
        self.open.send_replace(true);
    }
}
