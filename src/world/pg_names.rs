//! What the trace records of a client's PostgreSQL requests: the bytes, with prepared
//! statement and portal names renamed in the order a connection first uses them.
//! tokio-postgres names its statements from a process-wide counter (`s0`, `s1`, …), so
//! the same run's requests carry other names the second time it runs in one process; the
//! trace (and its fingerprint) must not depend on what ran before. The server gets the
//! bytes unchanged. Messages are decoded and re-encoded by `pgwire`; a message split
//! across writes is recorded whole with the write that completes it (the ones before
//! record nothing of it), and bytes that do not decode are recorded as they are.

use bytes::{Bytes, BytesMut};
use pgwire::messages::{DecodeContext, PgWireFrontendMessage, ProtocolVersion};
use std::collections::BTreeMap;

/// Names one connection may introduce before the rest are recorded as they are.
const NAMES_MAX: usize = 4_096;

/// One connection's renaming.
#[derive(Debug, Default)]
pub struct PgNames {
    started: bool,
    names: BTreeMap<String, String>,
    /// Bytes of a message split across writes, until it is whole.
    pending: BytesMut,
}

/// Bytes a split message may gather before the rest are recorded as they are.
const PENDING_BYTES_MAX: usize = 64 << 20;

impl PgNames {
    /// The bytes to record for `chunk`, a write of the client.
    pub fn canonical(&mut self, chunk: &[u8]) -> Bytes {
        if !self.started {
            // The startup packet (no type byte) comes first, alone in its write.
            self.started = true;
            return Bytes::copy_from_slice(chunk);
        }
        if self.pending.len() + chunk.len() > PENDING_BYTES_MAX {
            return Bytes::copy_from_slice(chunk);
        }
        self.pending.extend_from_slice(chunk);
        let mut context = DecodeContext::new(ProtocolVersion::PROTOCOL3_0);
        (
            context.awaiting_frontend_ssl,
            context.awaiting_frontend_startup,
        ) = (false, false);
        let mut out = BytesMut::with_capacity(chunk.len());
        loop {
            match PgWireFrontendMessage::decode(&mut self.pending, &context) {
                Ok(Some(message)) => {
                    if self.rename(message).encode(&mut out).is_err() {
                        return Bytes::copy_from_slice(chunk);
                    }
                }
                // A message split across writes is recorded whole with its last part.
                Ok(None) => return out.freeze(),
                Err(_) => {
                    self.pending.clear();
                    return Bytes::copy_from_slice(chunk);
                }
            }
        }
    }

    fn rename(&mut self, message: PgWireFrontendMessage) -> PgWireFrontendMessage {
        use PgWireFrontendMessage as M;
        match message {
            M::Parse(mut m) => (m.name = self.name(m.name), M::Parse(m)).1,
            M::Bind(mut m) => {
                m.statement_name = self.name(m.statement_name);
                m.portal_name = self.name(m.portal_name);
                M::Bind(m)
            }
            M::Describe(mut m) => (m.name = self.name(m.name), M::Describe(m)).1,
            M::Close(mut m) => (m.name = self.name(m.name), M::Close(m)).1,
            M::Execute(mut m) => (m.name = self.name(m.name), M::Execute(m)).1,
            other => other,
        }
    }

    /// The canonical name of `name` (`""` and `None`, the unnamed one, stay).
    fn name(&mut self, name: Option<String>) -> Option<String> {
        let name = name.filter(|n| !n.is_empty())?;
        if let Some(canonical) = self.names.get(&name) {
            return Some(canonical.clone());
        }
        if self.names.len() >= NAMES_MAX {
            return Some(name);
        }
        let canonical = format!("n{}", self.names.len());
        self.names.insert(name, canonical.clone());
        Some(canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgwire::messages::extendedquery::{Describe, Parse, Sync};

    fn encode(messages: Vec<PgWireFrontendMessage>) -> Vec<u8> {
        let mut out = BytesMut::new();
        messages
            .into_iter()
            .for_each(|m| m.encode(&mut out).unwrap());
        out.to_vec()
    }

    #[test]
    fn statement_names_are_recorded_in_the_order_a_connection_uses_them() {
        let request = |name: &str| {
            encode(vec![
                PgWireFrontendMessage::Parse(Parse::new(
                    Some(name.into()),
                    "SELECT 1".into(),
                    vec![],
                )),
                PgWireFrontendMessage::Describe(Describe::new(b'S', Some(name.into()))),
                PgWireFrontendMessage::Sync(Sync::new()),
            ])
        };
        let (mut first, mut second) = (PgNames::default(), PgNames::default());
        first.canonical(b"startup");
        second.canonical(b"startup");
        assert_eq!(
            first.canonical(&request("s7")),
            second.canonical(&request("s91"))
        );
        assert_ne!(
            first.canonical(&request("s8")),
            second.canonical(&request("s91"))
        );
        second.canonical(&request("s5"));
        let split = request("s12");
        let (head, tail) = split.split_at(7);
        assert!(first.canonical(head).is_empty(), "recorded when whole");
        assert_eq!(first.canonical(tail), second.canonical(&request("s3")));
    }
}
