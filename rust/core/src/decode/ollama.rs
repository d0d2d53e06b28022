//! Ollama `/api/chat` streaming lines (NDJSON): whole calls, their arguments as objects.

use std::borrow::Cow;

use super::EventExtras;
use crate::accumulator::{Accumulator, FinishKind, Fragment};
use crate::chat_chunk::{Canonical, ChunkError};
use crate::json_view::{Object, Path, object};

const CHOICE: i64 = 0;

/// Read one line (Ollama keeps no state between lines: its calls arrive whole).
pub(super) fn read<'a>(
    accumulator: &mut Accumulator,
    event: &Object<'a>,
    data: &'a [u8],
    canonical: Canonical<'_>,
) -> Result<EventExtras<'a>, ChunkError> {
    let root = Path::ROOT;
    if let Some(error) = event.raw("error") {
        return Ok(EventExtras::error(error));
    }
    accumulator.touch(CHOICE);
    if let Some(message) = event.object("message", &root)? {
        let at = root.key("message");
        let calls = message.list("tool_calls", &at)?.unwrap_or_default();
        let list_at = at.key("tool_calls");
        for (position, raw) in calls.into_iter().enumerate() {
            let entry_at = list_at.item(position);
            let call = object(raw, &entry_at)?;
            let id = call.string("id", &entry_at)?;
            let function_at = entry_at.key("function");
            let function = call.object("function", &entry_at)?;
            let (name, arguments) = match &function {
                Some(function) => (
                    function.string("name", &function_at)?,
                    function
                        .raw("arguments")
                        .map(|raw| {
                            canonical(raw).map_err(|problem| {
                                function_at
                                    .key("arguments")
                                    .fail(format!("the arguments are not JSON: {problem}"))
                            })
                        })
                        .transpose()?,
                ),
                None => (None, None),
            };
            let fragment = Fragment {
                id: id.as_deref(),
                name: name.as_deref(),
                kind: Some(b"function"),
                arguments: arguments.as_deref(),
                ..Fragment::default()
            };
            accumulator.whole_call(CHOICE, &fragment);
        }
        if let Some(content) = message.string("content", &at)? {
            accumulator.text(CHOICE, &content);
        }
    }
    if event.boolean("done", &root)? != Some(true) {
        return Ok(EventExtras::default());
    }
    if let Some(reason) = event.string("done_reason", &root)? {
        let kind = if &*reason == b"length" {
            FinishKind::Cut
        } else {
            FinishKind::Neutral
        };
        accumulator.finish_as(CHOICE, &reason, kind);
    }
    Ok(EventExtras {
        error: None,
        usage: Some(Cow::Borrowed(data)),
        ..EventExtras::default()
    })
}
