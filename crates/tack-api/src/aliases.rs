//! The names a user may give instead of a model id, as Claude Code 2.1.328
//! has them (measured on the scripted server, issue 37, 2026-12), and what
//! the `/model` picker offers.
//!
//! | alias | model |
//! | --- | --- |
//! | none, `default` | the default model ([`crate::models::DEFAULT_MODEL`]) |
//! | `opus`, `best`, `opus[1m]` | `claude-opus-5-5` |
//! | `sonnet`, `sonnet[1m]` | `claude-sonnet-5-5` |
//! | `haiku`, `haiku[1m]` | `claude-haiku-5-5` |
//! | `fable` | `claude-fable-5-2` |
//! | `opusplan` | Opus in plan mode, Sonnet outside it |
//!
//! Anything else is a model id, sent as given. Which environment variable
//! retargets which alias is the runtime's business (`tack-runtime`'s
//! `model.rs`); this file only names them.

use crate::models::DEFAULT_MODEL;

/// A family an alias names: its current model and the variable that pins it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Opus,
    Sonnet,
    Haiku,
    Fable,
}

impl Family {
    /// The family's current model.
    pub fn model(self) -> &'static str {
        match self {
            Family::Opus => "claude-opus-5-5",
            Family::Sonnet => "claude-sonnet-5-5",
            Family::Haiku => "claude-haiku-5-5",
            Family::Fable => "claude-fable-5-2",
        }
    }

    /// The environment variable that replaces [`Family::model`].
    pub fn env_var(self) -> &'static str {
        match self {
            Family::Opus => "ANTHROPIC_DEFAULT_OPUS_MODEL",
            Family::Sonnet => "ANTHROPIC_DEFAULT_SONNET_MODEL",
            Family::Haiku => "ANTHROPIC_DEFAULT_HAIKU_MODEL",
            Family::Fable => "ANTHROPIC_DEFAULT_FABLE_MODEL",
        }
    }
}

/// What an alias stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alias {
    /// No model named, or `default`.
    Default,
    Family(Family),
    /// `opusplan`: Opus while planning, Sonnet otherwise.
    OpusPlan,
}

/// The alias `name` is, if it is one (exact, lowercase, as Claude Code takes them).
pub fn alias(name: &str) -> Option<Alias> {
    Some(match name {
        "default" => Alias::Default,
        "opus" | "best" | "opus[1m]" => Alias::Family(Family::Opus),
        "sonnet" | "sonnet[1m]" => Alias::Family(Family::Sonnet),
        "haiku" | "haiku[1m]" => Alias::Family(Family::Haiku),
        "fable" => Alias::Family(Family::Fable),
        "opusplan" => Alias::OpusPlan,
        _ => return None,
    })
}

/// One row of the `/model` picker: what to type, what it is, and the model
/// whose prices it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelChoice {
    pub alias: &'static str,
    pub description: &'static str,
    /// The model the alias names without environment overrides (`opusplan`:
    /// the one it plans with).
    pub model: &'static str,
}

/// The picker's rows, in Claude Code's order.
pub const MODEL_CHOICES: &[ModelChoice] = &[
    ModelChoice {
        alias: "default",
        description: "Opus 5.5, the most capable model for complex work (recommended)",
        model: DEFAULT_MODEL,
    },
    ModelChoice {
        alias: "sonnet",
        description: "Sonnet 5.5, for everyday tasks",
        model: "claude-sonnet-5-5",
    },
    ModelChoice {
        alias: "haiku",
        description: "Haiku 5.5, the fastest for quick answers",
        model: "claude-haiku-5-5",
    },
    ModelChoice {
        alias: "fable",
        description: "Fable 5.2, the largest model",
        model: "claude-fable-5-2",
    },
    ModelChoice {
        alias: "opusplan",
        description: "Opus 5.5 in plan mode, else Sonnet 5.5",
        model: "claude-opus-5-5",
    },
];

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;
    use crate::models::model_info;

    #[test]
    fn every_alias_of_the_table() {
        let names = [
            "default",
            "opus",
            "best",
            "opus[1m]",
            "sonnet",
            "sonnet[1m]",
            "haiku",
            "haiku[1m]",
            "fable",
            "opusplan",
            "Opus",
            "claude-opus-5-5",
        ];
        let got: Vec<_> = names.into_iter().map(alias).collect();
        let fam = |f| Some(Alias::Family(f));
        assert_eq!(
            got,
            [
                Some(Alias::Default),
                fam(Family::Opus),
                fam(Family::Opus),
                fam(Family::Opus),
                fam(Family::Sonnet),
                fam(Family::Sonnet),
                fam(Family::Haiku),
                fam(Family::Haiku),
                fam(Family::Fable),
                Some(Alias::OpusPlan),
                None,
                None,
            ]
        );
    }

    #[test]
    fn every_family_and_choice_is_a_row_of_the_table() {
        let families = [Family::Opus, Family::Sonnet, Family::Haiku, Family::Fable];
        for model in families
            .map(Family::model)
            .into_iter()
            .chain(MODEL_CHOICES.iter().map(|c| c.model))
        {
            assert_eq!(model_info(model).map(|i| i.id), Some(model));
        }
        assert_eq!(Family::Opus.model(), DEFAULT_MODEL);
    }
}
