//! `background-resend`: an append whose reply was slow is resent in the background a
//! little later, "in case the first write was lost on the way" (a watchdog some teams add
//! after a lost-message incident). The resend looks first and pushes only a message the
//! list neither holds nor has anything newer than, so a normal conversation never sees
//! it. But when the user clears
//! the chat (or deletes that message) between the slow append and its resend, the resend
//! finds the message gone and puts it back: the message comes back after an acked clear
//! (`zombie`). It takes a slow reply and an erase of that session within the resend's
//! delay: rare in a sweep.

use crate::clock::Clock;
use crate::store::{Message, RedisChatStore, SessionKey, StoreError};
use std::sync::Arc;

/// An append slower than this, by the app host's clock, is resent.
pub(crate) const SLOW_MS: u64 = 2_500;
/// How long after a slow append its resend runs.
pub(crate) const RESEND_AFTER_MS: u64 = 1_000;

/// The reference store with a background resend of slow appends.
pub struct BackgroundResendStore {
    pub(crate) inner: Arc<RedisChatStore>,
    pub(crate) clock: Clock,
}

/// Push `msg` again unless the session's list holds it: the watchdog's resend.
async fn resend(inner: Arc<RedisChatStore>, session: SessionKey, msg: Message) {
    use crate::contract::MemoryStore as _;
    tokio::time::sleep(std::time::Duration::from_millis(RESEND_AFTER_MS)).await;
    let Ok(window) = inner.context(&session, usize::MAX / 2).await else {
        return;
    };
    // Held, or overtaken by a newer message (then it was trimmed, not lost): done.
    if window
        .iter()
        .any(|held| held.id == msg.id || held.seq > msg.seq)
    {
        return;
    }
    // The bug: "not there, nothing after it" is taken for "lost", but a clear or a
    // delete removed it.
    let _ = inner.append(&session, &msg).await;
}

super::memory_store!(BackgroundResendStore, forward inner [context, clear, delete, remember, update_memory, recall, audit_memories, policy] {
    async fn append(&self, session: &SessionKey, msg: &Message) -> Result<(), StoreError> {
        let started_ms = self.clock.now_ms();
        let result = self.inner.append(session, msg).await;
        if result.is_ok() && self.clock.now_ms().saturating_sub(started_ms) > SLOW_MS {
            let watchdog = resend(self.inner.clone(), session.clone(), msg.clone());
            tokio::spawn(tracing::Instrument::in_current_span(watchdog));
        }
        result
    }
});
