//! The sandbox's network asks: a destination no `allowedDomains` /
//! `deniedDomains` pattern decides goes to the front end as a permission
//! request naming the domain (the terminal UI's dialog, the SDK's
//! `can_use_tool`), and is denied where nobody can answer (`-p` without a
//! prompt, dontAsk).

use std::future::Future;
use std::pin::Pin;
use std::sync::Weak;

use super::Gate;
use crate::event::{PermissionRequest, RuntimeEvent};
use crate::protocol::ask::{AskAnswer, PermissionAnswer};
use serde_json::json;
use tack_protocol::PermissionMode;
use tack_sandbox::proxy::{NetworkAsk, NetworkDecision};

/// The name a network request carries as its "tool".
const NETWORK_REQUEST_TOOL: &str = "SandboxNetworkAccess";

impl Gate {
    async fn ask_network(&self, host: &str, port: u16) -> NetworkDecision {
        if self.mode() == PermissionMode::DontAsk {
            return NetworkDecision::Deny;
        }
        let Some(prompts) = &self.prompts else {
            return NetworkDecision::Deny;
        };
        let request = |id| PermissionRequest {
            id,
            tool_name: NETWORK_REQUEST_TOOL.to_owned(),
            input: json!({"host": host, "port": port}),
            tool_use_id: format!("network-{}", uuid::Uuid::new_v4()),
            reason: format!("Network request outside the sandbox: {host}:{port}"),
            // "Don't ask again" keeps the domain as Claude Code's sandbox
            // reads it from the rules (the proxy's allowed domains).
            suggestions: vec![format!("WebFetch(domain:{host})")],
            blocked_path: None,
            agent: None,
            original: None,
            choices: Vec::new(),
        };
        let Some(mut pending) =
            prompts.ask(|id| RuntimeEvent::PermissionRequest(Box::new(request(id))))
        else {
            return NetworkDecision::Deny;
        };
        match pending.answer().await {
            Some(AskAnswer::Permission(PermissionAnswer::Allow { updates, .. }))
                if updates.is_empty() =>
            {
                NetworkDecision::AllowOnce
            }
            Some(AskAnswer::Permission(PermissionAnswer::Allow { updates, .. })) => {
                updates.iter().for_each(|u| self.apply(u));
                NetworkDecision::AllowDomain
            }
            Some(AskAnswer::Permission(PermissionAnswer::Deny { .. }))
            | Some(AskAnswer::Hook(_))
            | None => NetworkDecision::Deny,
        }
    }
}

/// The proxy's [`NetworkAsk`], through the session's gate (held weakly: the
/// gate keeps the sandbox, which keeps the proxy).
pub(crate) struct GateNetworkAsk(pub Weak<Gate>);

impl NetworkAsk for GateNetworkAsk {
    fn decide<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> Pin<Box<dyn Future<Output = NetworkDecision> + Send + 'a>> {
        Box::pin(async move {
            match self.0.upgrade() {
                Some(gate) => gate.ask_network(host, port).await,
                None => NetworkDecision::Deny,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use pretty_assertions::assert_eq;
    use serde_json::Value;
    use tack_permissions::{PermissionContext, RuleSet};
    use tack_protocol::control::{
        PermissionBehavior, PermissionDestination, PermissionRuleValue, PermissionUpdate,
        RulesUpdate,
    };
    use tokio::task::JoinHandle;

    use super::*;
    use crate::emit::Emitter;
    use crate::gate::{SettingsFiles, TurnCancel};

    fn gate(mode: PermissionMode, prompts: Option<Emitter>, dir: &std::path::Path) -> Arc<Gate> {
        let ctx = PermissionContext::new(mode, RuleSet::new(), dir, dir, &[]);
        let files = SettingsFiles {
            local: dir.join("settings.local.json"),
            project: dir.join("settings.json"),
            user: None,
        };
        Arc::new(Gate::new(
            ctx,
            None,
            prompts,
            TurnCancel::default(),
            files,
            None,
        ))
    }

    /// A request as the front end saw it: tool, input, reason, suggestions.
    type Asked = (String, Value, String, Vec<String>);

    /// Answers every request with `answer`, keeping what was asked.
    fn front_end(answer: fn() -> PermissionAnswer) -> (Emitter, JoinHandle<Vec<Asked>>) {
        let (emit, mut rx) = Emitter::for_tests();
        let asks = emit.asks().clone();
        let seen = tokio::spawn(async move {
            let mut seen = Vec::new();
            while let Some(RuntimeEvent::PermissionRequest(r)) = rx.recv().await {
                seen.push((r.tool_name, r.input, r.reason, r.suggestions));
                let _ = asks.answer(r.id, AskAnswer::Permission(answer()));
            }
            seen
        });
        (emit, seen)
    }

    #[tokio::test]
    async fn a_new_domain_is_asked_and_the_answer_decides() {
        let dir = tempfile::tempdir().unwrap();
        let always = || PermissionAnswer::Allow {
            updated_input: None,
            updates: vec![PermissionUpdate::AddRules(RulesUpdate {
                rules: vec![PermissionRuleValue {
                    tool_name: "WebFetch".into(),
                    rule_content: Some("domain:example.com".into()),
                }],
                behavior: PermissionBehavior::Allow,
                destination: PermissionDestination::LocalSettings,
            })],
        };
        let cases: [(fn() -> PermissionAnswer, NetworkDecision); 3] = [
            (PermissionAnswer::allow, NetworkDecision::AllowOnce),
            (always, NetworkDecision::AllowDomain),
            (
                || PermissionAnswer::Deny {
                    message: "no".into(),
                    interrupt: false,
                },
                NetworkDecision::Deny,
            ),
        ];
        for (answer, expected) in cases {
            let (emit, seen) = front_end(answer);
            let g = gate(PermissionMode::Default, Some(emit), dir.path());
            let ask = GateNetworkAsk(Arc::downgrade(&g));
            assert_eq!(ask.decide("example.com", 443).await, expected);
            drop(g);
            assert_eq!(
                seen.await.unwrap(),
                [(
                    NETWORK_REQUEST_TOOL.to_owned(),
                    json!({"host": "example.com", "port": 443}),
                    "Network request outside the sandbox: example.com:443".to_owned(),
                    vec!["WebFetch(domain:example.com)".to_owned()],
                )]
            );
        }
        // "Don't ask again" was saved where the proxy's allowed domains are read.
        let saved = std::fs::read_to_string(dir.path().join("settings.local.json")).unwrap();
        assert!(saved.contains("WebFetch(domain:example.com)"), "{saved}");
    }

    #[tokio::test]
    async fn nobody_to_ask_or_dont_ask_mode_is_a_deny() {
        let dir = tempfile::tempdir().unwrap();
        let (emit, seen) = front_end(PermissionAnswer::allow);
        let dont_ask = gate(PermissionMode::DontAsk, Some(emit), dir.path());
        let print = gate(PermissionMode::Default, None, dir.path());
        for g in [&dont_ask, &print] {
            let ask = GateNetworkAsk(Arc::downgrade(g));
            assert_eq!(ask.decide("example.com", 443).await, NetworkDecision::Deny);
        }
        drop((dont_ask, print));
        assert_eq!(seen.await.unwrap(), []);
        let gone = GateNetworkAsk(Weak::new());
        assert_eq!(gone.decide("example.com", 443).await, NetworkDecision::Deny);
    }
}
