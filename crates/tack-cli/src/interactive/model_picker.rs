//! `/model` without a name: the picker's rows, from tack-api's table of
//! aliases and prices, with the environment's pins applied
//! (`ANTHROPIC_DEFAULT_SONNET_MODEL` and the like).

use tack_runtime::Env;
use tack_runtime::ModelAliases;
use tack_tui::event::ModelOption;

/// Each alias the picker offers, the model it names under `env` and that
/// model's price (a model missing from the table: the rate it is charged at).
pub fn model_options(env: &Env) -> Vec<ModelOption> {
    let aliases = ModelAliases::from_env(env);
    tack_api::aliases::MODEL_CHOICES
        .iter()
        .map(|choice| {
            // `opusplan` shows the model it plans with.
            let model = match choice.alias {
                "opusplan" => aliases.resolve(choice.alias, true),
                alias => aliases.resolve(alias, false),
            };
            let prices = tack_api::model_info(&model)
                .map_or_else(|| tack_api::fallback_pricing().1, |i| i.prices);
            ModelOption {
                alias: choice.alias.to_owned(),
                model,
                description: choice.description.to_owned(),
                input_usd: prices.input,
                output_usd: prices.output,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn rows_follow_the_table_and_the_environment() {
        let env = Env([(
            "ANTHROPIC_DEFAULT_SONNET_MODEL".to_owned(),
            "my-sonnet".to_owned(),
        )]
        .into());
        let rows: Vec<(String, String, f64, f64)> = model_options(&env)
            .into_iter()
            .map(|o| (o.alias, o.model, o.input_usd, o.output_usd))
            .collect();
        let row = |a: &str, m: &str, i, o| (a.to_owned(), m.to_owned(), i, o);
        assert_eq!(
            rows,
            [
                row("default", "claude-opus-5-5", 4.0, 20.0),
                // A pinned model tack has no price for: the default's rate.
                row("sonnet", "my-sonnet", 4.0, 20.0),
                row("haiku", "claude-haiku-5-5", 0.1, 0.5),
                row("fable", "claude-fable-5-2", 8.0, 40.0),
                row("opusplan", "claude-opus-5-5", 4.0, 20.0),
            ]
        );
    }
}
