//! Tool calls that open-weight models write in their text: each dialect's streaming parser, and what they share.

#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the dialects of raw values (qwen3_coder, glm45, minimax_m2) are ported onto it next"
    )
)]
mod raw_values;
