//! The shared corpora (`../shared/corpora`) as the unit tests read them: a test whose corpus is absent skips.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The corpus folder `name`, or `None` (with a note) when it is absent.
pub(crate) fn corpus(name: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpora")
        .join(name);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: {} is absent; skipped", dir.display());
        None
    }
}

/// Every case (`{"description", "schema", "tests"}`) of the JSON Schema Test Suite's `folder` under `dir`, with the
/// file it came from, files in name order.
pub(crate) fn schema_suite_cases(dir: &Path, folder: &str) -> Vec<(PathBuf, Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(folder))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .flat_map(|path| {
            let cases: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let Value::Array(cases) = cases else {
                panic!("{path:?} holds no list of cases")
            };
            cases.into_iter().map(move |case| (path.clone(), case))
        })
        .collect()
}
