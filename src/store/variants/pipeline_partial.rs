//! `pipeline-partial`: the append is one non-transactional pipeline (`RPUSH`, `SET NX` of the
//! first message, `LTRIM`, two `PEXPIRE`s) sent with `ignore_errors()` and every reply
//! ignored: "we only care that the round trip went through". Without MULTI, each command
//! stands alone, and an error reply to one of them (OOM, LOADING, READONLY, BUSY) is dropped
//! on the floor: when it hits the `RPUSH`, the append reports success for a message Redis
//! never stored (`lost`).

use super::Layout;
use crate::store::reference::{encode_message, queue_push, session_keys};
use crate::store::{Message, SessionKey, StoreError};

/// The reference layout written by a plain pipeline whose replies nobody reads.
pub struct PipelinePartialStore {
    pub(crate) base: Layout,
}

super::memory_store!(PipelinePartialStore, forward base [context, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let (list, head) = session_keys(session);
        let encoded = encode_message(msg);
        let mut pipe = redis::pipe();
        // The bug: no `atomic()`, and `ignore_errors()` so "a failed PEXPIRE does not fail
        // the append" — nor does a failed RPUSH.
        pipe.ignore_errors();
        queue_push(&mut pipe, (&list, &head), &encoded, &self.base.config);
        self.base.connector
            .run(|mut connection| async move { pipe.query_async::<()>(&mut connection).await })
            .await
    }
});
