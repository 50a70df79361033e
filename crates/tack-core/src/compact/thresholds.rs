//! Where the context-window limits sit for a model, in tokens.

/// Tokens kept free below the autocompact threshold (seed 004 step 9:
/// autocompact fires at the effective window minus 13k).
pub const AUTOCOMPACT_BUFFER_TOKENS: u64 = 13_000;
/// Room left for a manual `/compact` when autocompact is off (seed 004 step 10:
/// MANUAL_COMPACT_BUFFER_TOKENS).
pub const MANUAL_COMPACT_BUFFER_TOKENS: u64 = 3_000;
/// Output reserved for the summary an autocompaction asks for.
pub const SUMMARY_OUTPUT_RESERVE_TOKENS: u64 = 20_000;

/// The limits of one model's context window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextLimits {
    /// The model's context window (200k, 1M, ...).
    pub window: u64,
    /// The output cap of a request, which must fit in the window too.
    pub max_output: u64,
}

impl ContextLimits {
    /// The window minus room for the model's answer: what the prompt may fill.
    pub fn effective_window(&self) -> u64 {
        self.window
            .saturating_sub(self.max_output.min(SUMMARY_OUTPUT_RESERVE_TOKENS))
    }

    /// Above this many prompt tokens autocompaction runs before the request.
    pub fn autocompact_threshold(&self) -> u64 {
        self.effective_window()
            .saturating_sub(AUTOCOMPACT_BUFFER_TOKENS)
    }

    /// At or above this many prompt tokens (with autocompact off) the loop stops
    /// with `BlockingLimit` instead of sending a request bound to fail.
    pub fn blocking_limit(&self) -> u64 {
        self.effective_window()
            .saturating_sub(MANUAL_COMPACT_BUFFER_TOKENS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_of_a_200k_model() {
        let l = ContextLimits {
            window: 200_000,
            max_output: 64_000,
        };
        assert_eq!(
            (
                l.effective_window(),
                l.autocompact_threshold(),
                l.blocking_limit()
            ),
            (180_000, 167_000, 177_000)
        );
    }

    #[test]
    fn small_output_cap_reserves_only_itself_and_tiny_windows_do_not_underflow() {
        let l = ContextLimits {
            window: 200_000,
            max_output: 8_000,
        };
        assert_eq!(l.effective_window(), 192_000);
        let tiny = ContextLimits {
            window: 1_000,
            max_output: 64_000,
        };
        assert_eq!(
            (tiny.autocompact_threshold(), tiny.blocking_limit()),
            (0, 0)
        );
    }
}
