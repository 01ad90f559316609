//! README's command table is the model's: every command the model has is listed there,
//! and nothing listed is missing from the model.

use std::collections::BTreeSet;

/// The first word of every backticked command in the rows of README's `### Commands`
/// table, lowercased.
fn readme_commands() -> BTreeSet<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md beside Cargo.toml");
    let table = readme
        .split("### Commands")
        .nth(1)
        .expect("a Commands section")
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2); // the header and its rule
    table
        .flat_map(|row| {
            let cells: Vec<&str> = row.split('|').collect();
            cells[2]
                .split('`')
                .skip(1)
                .step_by(2)
                .filter_map(|command| command.split_whitespace().next())
                .map(str::to_ascii_lowercase)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn readme_lists_exactly_the_models_commands() {
    let listed = readme_commands();
    let model: BTreeSet<String> = amnesia::internal::model::commands::table::names()
        .map(String::from)
        .collect();
    let unlisted: Vec<_> = model.difference(&listed).collect();
    let phantom: Vec<_> = listed.difference(&model).collect();
    assert!(
        unlisted.is_empty(),
        "in the model, not in README: {unlisted:?}"
    );
    assert!(
        phantom.is_empty(),
        "in README, not in the model: {phantom:?}"
    );
    assert!(model.len() > 150, "{}", model.len());
}
