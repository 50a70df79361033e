//! Changing a running session's servers, as the Agent SDKs ask for it:
//! `mcp_reconnect`, `mcp_toggle` and `mcp_set_servers`.
//!
//! # The model
//! A server is a slot ([`crate::manager`]); these replace a slot's state or
//! the list of slots, and every change bumps the manager's generation, so
//! the session rebuilds its tool set before its next request.
//!
//! `mcp_set_servers` manages what it names (Claude Code's rules): each named
//! server is added, or replaced when its configuration differs; a server it
//! named before and omits now is removed, and so is a host's in-process
//! (`sdk`) server it omits. Servers from settings, `.mcp.json`,
//! `--mcp-config` and plugins stay unless a call has named them. A server
//! that fails to connect is listed under `added` and in `errors`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use crate::config::{ConfigScope, ServerConfig, parse_servers};
use crate::manager::{McpManager, Slot, SlotState, lock, new_slot};
use crate::names::normalize_name;

/// What `mcp_set_servers` did (its answer, as Claude Code words it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SetServersResult {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// A server that could not connect (or be read), and why.
    pub errors: BTreeMap<String, String>,
}

impl McpManager {
    /// Drops `name`'s connection (if any) and connects it again; `Err` with
    /// why when it does not connect.
    pub async fn reconnect(&self, name: &str) -> Result<(), String> {
        let slot = self.slot(name)?;
        self.restart(&slot).await
    }

    /// Turns `name` off (its connection and tools go) or on again.
    pub async fn toggle(&self, name: &str, enabled: bool) -> Result<(), String> {
        let slot = self.slot(name)?;
        if enabled {
            return self.restart_if_disabled(&slot).await;
        }
        let old = std::mem::replace(&mut *lock(&slot.state), SlotState::Disabled);
        drop(old);
        self.bump();
        Ok(())
    }

    /// Makes the managed servers those of `servers` (an `mcpServers` object).
    pub async fn set_servers(
        &self,
        servers: &Value,
        lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    ) -> Result<SetServersResult, String> {
        let parsed = parse_servers(servers, ConfigScope::Dynamic, "mcp_set_servers")?;
        let mut result = SetServersResult::default();
        for issue in parsed.issues {
            result.errors.insert(issue.server, issue.message);
        }
        let named: BTreeSet<String> = parsed.servers.iter().map(|e| e.name.clone()).collect();
        let before = self.slots();
        let managed = std::mem::replace(&mut *lock(&self.shared.named_by_set), named.clone());
        let removable = |slot: &Slot| {
            managed.contains(&slot.entry.name)
                || matches!(slot.entry.config, ServerConfig::Sdk { .. })
        };
        let mut kept: Vec<Arc<Slot>> = Vec::new();
        for slot in &before {
            let name = &slot.entry.name;
            let same = parsed
                .servers
                .iter()
                .any(|e| &e.name == name && e.config == slot.entry.config);
            if same || (!named.contains(name) && !removable(slot)) {
                kept.push(Arc::clone(slot));
            } else if !named.contains(name) {
                result.removed.push(name.clone());
            }
        }
        let mut taken: BTreeMap<String, String> = kept
            .iter()
            .map(|s| (normalize_name(&s.entry.name), s.entry.name.clone()))
            .collect();
        let mut started = Vec::new();
        for entry in &parsed.servers {
            if kept.iter().any(|s| s.entry.name == entry.name) {
                continue;
            }
            let slot = new_slot(entry, self.options(), lookup, &mut taken);
            result.added.push(entry.name.clone());
            kept.push(Arc::clone(&slot));
            started.push(slot);
        }
        kept.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
        self.set_slots(kept);
        for slot in &started {
            self.spawn_start(Arc::clone(slot));
        }
        for slot in &started {
            if let Err(why) = self.settled(slot).await {
                result.errors.insert(slot.entry.name.clone(), why);
            }
        }
        Ok(result)
    }

    fn slot(&self, name: &str) -> Result<Arc<Slot>, String> {
        self.slots()
            .into_iter()
            .find(|s| s.entry.name == name)
            .ok_or_else(|| format!("Server not found: {name}"))
    }

    async fn restart_if_disabled(&self, slot: &Arc<Slot>) -> Result<(), String> {
        if !matches!(*lock(&slot.state), SlotState::Disabled) {
            return Ok(());
        }
        self.restart(slot).await
    }

    /// Drops the slot's connection, starts it again and waits for the start.
    async fn restart(&self, slot: &Arc<Slot>) -> Result<(), String> {
        if slot.expanded.is_none() {
            return self.settled(slot).await;
        }
        let old = std::mem::replace(&mut *lock(&slot.state), SlotState::Pending);
        drop(old);
        self.bump();
        self.spawn_start(Arc::clone(slot));
        self.settled(slot).await
    }

    /// Waits until `slot` is no longer pending; `Err` unless it connected.
    async fn settled(&self, slot: &Slot) -> Result<(), String> {
        let mut rx = self.subscribe();
        loop {
            match &*lock(&slot.state) {
                SlotState::Connected(_) => return Ok(()),
                SlotState::Failed(why) | SlotState::NeedsAuth(why) => return Err(why.clone()),
                SlotState::Disabled => return Err("the server is disabled".into()),
                SlotState::Pending => {}
            }
            if rx.changed().await.is_err() {
                return Err("the session's MCP servers shut down".into());
            }
        }
    }
}
