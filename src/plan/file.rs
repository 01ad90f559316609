//! Plans as versioned JSON: saved by `shrink`, replayed by `replay --plan`, printed by
//! `run --print-plan`. Loading checks the version first, then the shape, then the
//! invariants, and says what is wrong in one line.

use super::{Plan, PLAN_VERSION};

/// Why a plan file cannot be used. Each message is one line, fit for a terminal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// Not JSON at all (syntax error or truncated file).
    #[error("malformed plan JSON at line {line}, column {column}: {message}")]
    Json {
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// The JSON parser's message.
        message: String,
    },
    /// JSON, but not shaped like a plan (missing field, wrong type, unknown field).
    #[error("plan JSON does not match the plan format at line {line}, column {column}: {message}")]
    Format {
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// The JSON parser's message.
        message: String,
    },
    /// JSON, but not an object.
    #[error("a plan is a JSON object, this JSON is not one")]
    NotAnObject,
    /// The `version` field is there but not a number (the field's JSON).
    #[error("plan version {0} is not a number (this amnesia reads version {PLAN_VERSION})")]
    VersionNotANumber(String),
    /// The object has no `version` field.
    #[error("plan has no version field (this amnesia reads version {PLAN_VERSION})")]
    NoVersion,
    /// A version this amnesia does not read.
    #[error("plan version {found} is not supported (this amnesia reads version {PLAN_VERSION})")]
    Version {
        /// The version the plan declares.
        found: u64,
    },
    /// Well-formed, but an invariant is broken.
    #[error("invalid plan: {0}")]
    Invalid(String),
    /// The file could not be read.
    #[error("cannot read plan file {path}: {message}")]
    Read {
        /// The path as given.
        path: String,
        /// The I/O error.
        message: String,
    },
    /// The file's contents are not a usable plan.
    #[error("plan file {path}: {error}")]
    File {
        /// The path as given.
        path: String,
        /// What is wrong with its contents.
        error: Box<PlanError>,
    },
}

impl PlanError {
    fn from_serde(error: serde_json::Error) -> PlanError {
        let (line, column) = (error.line(), error.column());
        let text = error.to_string();
        // serde_json appends " at line L column C"; we print the position ourselves.
        let message = match text.rfind(" at line ") {
            Some(cut) => text[..cut].to_string(),
            None => text,
        };
        match error.classify() {
            serde_json::error::Category::Data => PlanError::Format {
                line,
                column,
                message,
            },
            _ => PlanError::Json {
                line,
                column,
                message,
            },
        }
    }
}

impl Plan {
    /// The plan as pretty JSON; byte-identical for identical plans.
    pub fn to_json_pretty(&self) -> String {
        let mut json = serde_json::to_string_pretty(self).expect("a plan always serializes");
        json.push('\n');
        json
    }

    /// Loads a plan file (see [`Plan::from_json`]); the error names the file.
    pub fn load(path: &std::path::Path) -> Result<Plan, PlanError> {
        let shown = || path.display().to_string();
        let json = std::fs::read_to_string(path).map_err(|e| PlanError::Read {
            path: shown(),
            message: e.to_string(),
        })?;
        Plan::from_json(&json).map_err(|error| PlanError::File {
            path: shown(),
            error: Box::new(error),
        })
    }

    /// Loads a plan: JSON syntax, then version, then shape, then invariants.
    pub fn from_json(json: &str) -> Result<Plan, PlanError> {
        // Syntax first, then the version, so a plan of another version is named as such
        // rather than reported as a shape mismatch.
        let value: serde_json::Value = serde_json::from_str(json).map_err(PlanError::from_serde)?;
        let Some(object) = value.as_object() else {
            return Err(PlanError::NotAnObject);
        };
        match object.get("version") {
            None => return Err(PlanError::NoVersion),
            Some(version) => match version.as_u64() {
                Some(found) if found == u64::from(PLAN_VERSION) => {}
                Some(found) => return Err(PlanError::Version { found }),
                None => return Err(PlanError::VersionNotANumber(version.to_string())),
            },
        }
        let plan: Plan = serde_json::from_str(json).map_err(PlanError::from_serde)?;
        plan.validate()?;
        Ok(plan)
    }
}
