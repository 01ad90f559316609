//! PostgreSQL 18.3's settings beyond the few the model acts on (`catalog.txt`, read from
//! `pg_settings`): what `SHOW` prints for them, which a session may `SET`, and the values
//! each takes. A setting that changes no answer the model gives (the planner's costs and
//! switches, memory, logging) is taken with any value PostgreSQL takes; one that would
//! change an answer (`bytea_output`, `array_nulls`, `transform_null_equals`, …) is taken
//! at its default only and refused otherwise, never taken and ignored.

use super::value;
use crate::pg::error::{PgError, PgResult, CANT_CHANGE_RUNTIME_PARAM};
use std::sync::OnceLock;

/// One setting of `pg_settings`.
#[derive(Debug)]
pub(crate) struct Guc {
    pub(crate) name: &'static str,
    vartype: &'static str,
    context: &'static str,
    unit: &'static str,
    /// As `SHOW` prints it on a fresh server.
    pub(crate) default: &'static str,
    min: &'static str,
    max: &'static str,
    options: &'static str,
}

/// The catalogue's lines: `name|vartype|context|unit|default|min|max|enum values`.
const CATALOG: &str = include_str!("catalog.txt");
/// Settings in the catalogue (PostgreSQL 18.3 has 398, less the install's paths and port).
const CATALOG_LEN_MAX: usize = 512;

fn catalog() -> &'static [Guc] {
    static PARSED: OnceLock<Vec<Guc>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let gucs: Vec<Guc> = CATALOG
            .lines()
            .filter(|line| !line.starts_with('#'))
            .map(parse_line)
            .collect();
        assert!(
            gucs.len() <= CATALOG_LEN_MAX,
            "the settings catalogue's size"
        );
        assert!(
            gucs.windows(2).all(|pair| pair[0].name < pair[1].name),
            "the settings catalogue is sorted by name, each name once"
        );
        gucs
    })
}

fn parse_line(line: &'static str) -> Guc {
    let fields: Vec<&'static str> = line.split('|').collect();
    assert_eq!(fields.len(), 8, "a catalogue line has 8 fields: {line}");
    Guc {
        name: fields[0],
        vartype: fields[1],
        context: fields[2],
        unit: fields[3],
        default: fields[4],
        min: fields[5],
        max: fields[6],
        options: fields[7],
    }
}

/// The setting named `name` (lower case), if PostgreSQL has it.
pub(crate) fn lookup(name: &str) -> Option<&'static Guc> {
    let gucs = catalog();
    gucs.binary_search_by(|guc| guc.name.cmp(name))
        .ok()
        .map(|at| &gucs[at])
}

/// Settings whose value depends on the installation (initdb's choices, the server's
/// command line): the model cannot know what the server beside it prints.
const INSTALL_DEPENDENT: [&str; 9] = [
    "dynamic_shared_memory_type",
    "listen_addresses",
    "log_timezone",
    "max_connections",
    "shared_buffers",
    "unix_socket_directories",
    "unix_socket_group",
    "unix_socket_permissions",
    "wal_buffers",
];

/// Name prefixes and names of the settings no answer of the model depends on: the
/// planner's switches and costs, memory and workers, statistics, logging and tracing,
/// vacuum, I/O, connection keep-alives, and the checks and warnings that only print.
const PASSIVE_PREFIXES: [&str; 15] = [
    "enable_",
    "cpu_",
    "jit",
    "parallel_",
    "max_parallel_",
    "min_parallel_",
    "geqo",
    "log_",
    "debug_print_",
    "trace_",
    "track_",
    "vacuum_",
    "tcp_",
    "wal_",
    "commit_",
];
const PASSIVE_NAMES: [&str; 46] = [
    "allow_in_place_tablespaces",
    "allow_system_table_mods",
    "check_function_bodies",
    "client_connection_check_interval",
    "client_min_messages",
    "compute_query_id",
    "constraint_exclusion",
    "cursor_tuple_fraction",
    "debug_discard_caches",
    "debug_logical_replication_streaming",
    "debug_parallel_query",
    "debug_pretty_print",
    "default_statistics_target",
    "default_toast_compression",
    "default_transaction_deferrable",
    "effective_cache_size",
    "effective_io_concurrency",
    "escape_string_warning",
    "event_triggers",
    "file_copy_method",
    "from_collapse_limit",
    "gin_pending_list_limit",
    "hash_mem_multiplier",
    "icu_validation_level",
    "ignore_checksum_failure",
    "io_combine_limit",
    "join_collapse_limit",
    "logical_decoding_work_mem",
    "maintenance_io_concurrency",
    "maintenance_work_mem",
    "max_stack_depth",
    "md5_password_warnings",
    "password_encryption",
    "plan_cache_mode",
    "random_page_cost",
    "recursive_worktable_factor",
    "scram_iterations",
    "seq_page_cost",
    "stats_fetch_consistency",
    "synchronize_seqscans",
    "temp_buffers",
    "temp_file_limit",
    "transaction_deferrable",
    "update_process_title",
    "work_mem",
    "zero_damaged_pages",
];

/// True for a setting no answer of the model depends on.
fn passive(name: &str) -> bool {
    PASSIVE_NAMES.binary_search(&name).is_ok()
        || PASSIVE_PREFIXES
            .iter()
            .any(|prefix| name.starts_with(prefix))
}

impl Guc {
    /// What `SHOW` prints before any `SET`.
    pub(crate) fn shown_default(&self) -> PgResult<&'static str> {
        match INSTALL_DEPENDENT.contains(&self.name) {
            true => Err(PgError::unsupported(format!(
                "SHOW {} (it depends on how the server was installed and started)",
                self.name
            ))),
            false => Ok(self.default),
        }
    }

    /// Whether a session may change it now: `SET` takes only what a user or superuser
    /// may set while connected.
    pub(crate) fn settable(&self) -> PgResult<()> {
        let why = match self.context {
            "user" | "superuser" => return Ok(()),
            "postmaster" => "cannot be changed without restarting the server",
            "sighup" => "cannot be changed now",
            "backend" | "superuser-backend" => "cannot be set after connection start",
            _ => "cannot be changed",
        };
        Err(PgError::new(
            CANT_CHANGE_RUNTIME_PARAM,
            format!("parameter \"{}\" {why}", self.name),
        ))
    }

    /// `value` read as PostgreSQL reads it, printed as `SHOW` would; refused (0A000) when
    /// it is not the default of a setting an answer depends on.
    pub(crate) fn check(&self, value: &str) -> PgResult<String> {
        self.settable()?;
        let shown = self.read(value)?;
        if !passive(self.name) && shown != self.default {
            return Err(PgError::unsupported(format!(
                "{} = '{value}' (the model answers as PostgreSQL does under its default, {})",
                self.name, self.default
            )));
        }
        Ok(shown)
    }

    fn read(&self, value: &str) -> PgResult<String> {
        let bound = |text: &str| text.parse::<f64>().unwrap_or(f64::NAN);
        match self.vartype {
            "bool" => value::boolean(self.name, value),
            "integer" => {
                let [min, max] = [self.min, self.max].map(|b| bound(b) as i64);
                value::integer(self.name, value, self.unit, min, max)
            }
            "real" => value::real(
                self.name,
                value,
                self.unit,
                bound(self.min),
                bound(self.max),
            ),
            "enum" => {
                let options: Vec<&str> = self.options.split(',').collect();
                value::enumerated(self.name, value, &options)
            }
            _ => Ok(value.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::error::{FEATURE_NOT_SUPPORTED, INVALID_PARAMETER_VALUE};

    fn code(name: &str, value: &str) -> Result<String, String> {
        let guc = lookup(name).expect("a setting PostgreSQL has");
        guc.check(value).map_err(|e| e.code.to_string())
    }

    #[test]
    fn the_catalogue_is_postgresqls() {
        assert!(catalog().len() > 390);
        assert_eq!(lookup("work_mem").unwrap().default, "4MB");
        assert_eq!(lookup("nonesuch").map(|g| g.name), None);
        let names: Vec<&str> = PASSIVE_NAMES.to_vec();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(
            names, sorted,
            "PASSIVE_NAMES is sorted for its binary search"
        );
        for name in PASSIVE_NAMES.iter().chain(&INSTALL_DEPENDENT) {
            assert!(
                lookup(name).is_some(),
                "{name} is a setting of PostgreSQL's"
            );
        }
    }

    #[test]
    fn planner_settings_take_any_valid_value() {
        assert_eq!(code("work_mem", "64kB"), Ok("64kB".into()));
        assert_eq!(code("enable_hashagg", "FALSE"), Ok("off".into()));
        assert_eq!(code("jit_above_cost", "0"), Ok("0".into()));
        assert_eq!(code("maintenance_work_mem", "8GB"), Ok("8GB".into()));
        assert_eq!(code("constraint_exclusion", "on"), Ok("on".into()));
        let invalid = INVALID_PARAMETER_VALUE.to_string();
        assert_eq!(code("work_mem", "lots"), Err(invalid.clone()));
        assert_eq!(code("plan_cache_mode", "always"), Err(invalid));
    }

    #[test]
    fn settings_an_answer_depends_on_take_their_default_only() {
        assert_eq!(code("bytea_output", "HEX"), Ok("hex".into()));
        let refused = FEATURE_NOT_SUPPORTED.to_string();
        assert_eq!(code("bytea_output", "escape"), Err(refused.clone()));
        assert_eq!(code("transform_null_equals", "on"), Err(refused.clone()));
        assert_eq!(code("array_nulls", "off"), Err(refused));
    }

    #[test]
    fn settings_of_the_server_cannot_be_set_by_a_session() {
        let cant = CANT_CHANGE_RUNTIME_PARAM.to_string();
        assert_eq!(code("shared_buffers", "1GB"), Err(cant.clone()));
        assert_eq!(code("autovacuum", "off"), Err(cant));
        assert!(lookup("shared_buffers").unwrap().shown_default().is_err());
        assert_eq!(
            lookup("block_size").unwrap().shown_default().unwrap(),
            "8192"
        );
    }
}
