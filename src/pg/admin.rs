//! An outside session of the server's own: an administrator's migration (an `ALTER
//! TABLE`, a `VACUUM FULL`, a `CLUSTER`) that takes ACCESS EXCLUSIVE locks on the
//! database's tables and holds them for a while. Every statement of the stores on those
//! tables queues behind it: a store that set `lock_timeout` (or `statement_timeout`)
//! gets 55P03 (57014) and one that did not waits. The migration sets its own
//! `lock_timeout`, as a careful administrator does, so that it never outlasts its window
//! when the stores' transactions hold the tables first.

use crate::pg::error::PgError;
use crate::pg::server::PgModel;
use crate::pg::session::Session;

impl PgModel {
    /// The database's tables, in name order (the migration's target).
    pub(crate) fn table_names(&self) -> Vec<String> {
        self.db().tables.keys().cloned().collect()
    }

    /// On a backend of its own, `SET lock_timeout` to `lock_timeout_ms` (at least 1),
    /// `BEGIN` and `LOCK TABLE` every one of `tables` IN ACCESS EXCLUSIVE MODE, waiting
    /// for their holders as any session waits. The session holds what it took until
    /// [`PgModel::end_session`]; the error if it gave up.
    pub(crate) async fn lock_tables(
        &self,
        tables: &[String],
        lock_timeout_ms: u64,
    ) -> (Session, Result<(), PgError>) {
        assert!(!tables.is_empty(), "a migration locks some table");
        let mut session = Session::new(self.new_backend(), self.seed());
        let quoted: Vec<String> = tables.iter().map(|t| format!("\"{t}\"")).collect();
        let sql = format!(
            "SET lock_timeout = {}; BEGIN; LOCK TABLE {} IN ACCESS EXCLUSIVE MODE",
            lock_timeout_ms.max(1),
            quoted.join(", ")
        );
        let outcome = self.run_script(&mut session, &sql).await;
        (session, outcome)
    }

    /// The administrator's session ends: its transaction rolls back, its locks go.
    pub(crate) fn end_session(&self, mut session: Session) {
        self.close_session(&mut session);
    }

    /// Run `sql`'s statements on `session` in order, stopping at the first error.
    async fn run_script(&self, session: &mut Session, sql: &str) -> Result<(), PgError> {
        let parsed = self.parse(sql)?;
        for statement in parsed.statements.iter() {
            self.run(session, statement, &[]).await?;
        }
        Ok(())
    }
}
