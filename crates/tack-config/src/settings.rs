//! [`Settings`]: every source merged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use tack_sys::config_file::{MAX_CONFIG_BYTES, is_missing, read_config_file};

use crate::error::ConfigError;
use crate::file::{self, FileSettings, WorktreeBase};
use crate::providers::{ModelPrice, Provider};
use crate::sandbox::{self, SandboxSettings};
use crate::source::{Locations, Scope, Source};
use crate::unknown_keys::{self, SettingsWarning};

/// Keys only the user's settings and `--settings` may set, as in Claude
/// Code: a project's and a local file's are dropped (`vimInsertModeRemaps`:
/// a checked-out repository cannot remap the user's keystrokes).
const USER_ONLY_KEYS: &[&str] = &["vimInsertModeRemaps"];

/// A value and the settings source it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    value: T,
    source: Arc<Source>,
}

impl<T> Sourced<T> {
    pub fn value(&self) -> &T {
        &self.value
    }

    pub fn source(&self) -> &Source {
        &self.source
    }
}

/// The merged `permissions` object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Permissions {
    allow: Vec<Sourced<String>>,
    ask: Vec<Sourced<String>>,
    deny: Vec<Sourced<String>>,
    default_mode: Option<Sourced<String>>,
    additional_directories: Vec<Sourced<PathBuf>>,
    disable_bypass_permissions_mode: bool,
    disable_auto_mode: Option<Arc<Source>>,
    deny_instead_of_prompting: Option<bool>,
}

impl Permissions {
    /// `permissions.allow` of every source, lowest first, without repeats.
    pub fn allow(&self) -> &[Sourced<String>] {
        &self.allow
    }

    /// `permissions.ask` of every source.
    pub fn ask(&self) -> &[Sourced<String>] {
        &self.ask
    }

    /// `permissions.deny` of every source.
    pub fn deny(&self) -> &[Sourced<String>] {
        &self.deny
    }

    /// `permissions.defaultMode` of the highest source setting it (`manual`
    /// already read as `default`).
    pub fn default_mode(&self) -> Option<&Sourced<String>> {
        self.default_mode.as_ref()
    }

    /// `permissions.additionalDirectories` of every source, as absolute paths:
    /// `~/` is the home directory, relative paths resolve against the source's
    /// [`Source::root`] (the project for project and local settings).
    pub fn additional_directories(&self) -> &[Sourced<PathBuf>] {
        &self.additional_directories
    }

    /// Some source set `disableBypassPermissionsMode: "disable"`.
    pub fn bypass_mode_disabled(&self) -> bool {
        self.disable_bypass_permissions_mode
    }

    /// The source that set `disableAutoMode: "disable"`, if one did (any
    /// source may: turning auto mode off only tightens).
    pub fn auto_mode_disabled_by(&self) -> Option<&Source> {
        self.disable_auto_mode.as_deref()
    }

    /// `denyInsteadOfPrompting` (highest source): what would ask a person is
    /// denied instead (unattended runs).
    pub fn deny_instead_of_prompting(&self) -> bool {
        self.deny_instead_of_prompting.unwrap_or(false)
    }
}

/// One source's `hooks`: event → matcher groups, as written.
type Hooks = BTreeMap<String, Vec<Value>>;

/// Every settings source merged. See the crate docs for the precedence.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    sources: Vec<Arc<Source>>,
    model: Option<String>,
    fallback_model: Option<Vec<String>>,
    permissions: Permissions,
    env: BTreeMap<String, String>,
    hooks: Vec<(Arc<Source>, Hooks)>,
    disable_all_hooks: bool,
    api_key_helper: Option<Sourced<String>>,
    otel_headers_helper: Option<Sourced<String>>,
    cleanup_period_days: Option<u32>,
    include_co_authored_by: Option<bool>,
    attribution: Option<Map<String, Value>>,
    enable_all_project_mcp_servers: Option<bool>,
    enabled_mcpjson_servers: Vec<String>,
    disabled_mcpjson_servers: Vec<String>,
    auto_compact_enabled: Option<bool>,
    output_style: Option<String>,
    status_line: Option<Map<String, Value>>,
    providers: BTreeMap<String, Provider>,
    model_prices: BTreeMap<String, ModelPrice>,
    sandbox: SandboxSettings,
    worktree_base: Option<WorktreeBase>,
    auto_mode: Vec<(Arc<Source>, Value)>,
    use_auto_mode_during_plan: Option<bool>,
    skip_auto_permission_prompt: Option<bool>,
    extra: Map<String, Value>,
    ignored_untrusted: Vec<IgnoredUntrusted>,
    warnings: Vec<SettingsWarning>,
}

/// Entries of a project or local settings file left out because the workspace
/// is not trusted: they would let the repository's author run code (`hooks`,
/// `apiKeyHelper`, `statusLine`, `env`), loosen permissions (`allow` rules, a
/// looser `defaultMode`, `additionalDirectories`) or start servers (MCP
/// approvals). `deny` and `ask` rules, and every other key, still apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredUntrusted {
    pub source: Arc<Source>,
    /// The key as written (`permissions.allow`, `hooks`, ...).
    pub key: &'static str,
    /// How many entries (rules, hook events, variables; 1 for a scalar).
    pub count: usize,
}

/// Days of transcripts kept when `cleanupPeriodDays` is not set.
pub const DEFAULT_CLEANUP_PERIOD_DAYS: u32 = 30;

impl Settings {
    /// Reads and merges every settings file of `locations` (missing files are
    /// skipped) and then `flag`, the `--settings` value: inline JSON if it
    /// starts with `{`, else a file path (relative to the cwd) that must exist.
    /// A project or local file (the repository's) that cannot be read or
    /// parsed is skipped with a [`SettingsWarning::SkippedFile`]; an error in
    /// any other source is returned instead of settings.
    pub fn load(locations: &Locations, flag: Option<&str>) -> Result<Settings, ConfigError> {
        let mut layers = Vec::new();
        let mut skipped = Vec::new();
        for source in locations.files() {
            let parsed = match read_config_file(&source.path, MAX_CONFIG_BYTES) {
                Ok(text) => file::parse(&source, &text),
                Err(e) if is_missing(&e) => continue,
                Err(error) => Err(ConfigError::Io {
                    path: source.path.clone(),
                    error,
                }),
            };
            match parsed {
                Ok(parsed) => layers.push((source, parsed)),
                // The repository wrote these: a broken one is skipped, not fatal.
                Err(e) if matches!(source.scope(), Scope::Project | Scope::Local) => {
                    skipped.push(SettingsWarning::SkippedFile {
                        path: source.path.clone(),
                        error: e.to_string(),
                    });
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(flag) = flag {
            if flag.trim_start().starts_with('{') {
                let source = Source::inline(&locations.cwd);
                let parsed = file::parse(&source, flag)?;
                layers.push((source, parsed));
            } else {
                let path = locations.cwd.join(flag);
                let text =
                    read_config_file(&path, MAX_CONFIG_BYTES).map_err(|e| ConfigError::Io {
                        path: path.clone(),
                        error: e,
                    })?;
                let source = Source::file(Scope::Flag, path, &locations.cwd);
                let parsed = file::parse(&source, &text)?;
                layers.push((source, parsed));
            }
        }
        let mut settings = Settings {
            warnings: skipped,
            ..Settings::default()
        };
        for (source, parsed) in layers {
            let trusted = locations.workspace_trusted
                || !matches!(source.scope(), Scope::Project | Scope::Local);
            let parsed = if trusted {
                parsed
            } else {
                settings.withhold_untrusted(&source, parsed)
            };
            settings.merge(Arc::new(source), parsed, locations.home_dir.as_deref());
        }
        Ok(settings)
    }

    /// `file` without what an untrusted project may not set, recording what was
    /// left out.
    fn withhold_untrusted(&mut self, source: &Source, mut file: FileSettings) -> FileSettings {
        let source = Arc::new(source.clone());
        let mut note = |key: &'static str, count: usize| {
            if count > 0 {
                self.ignored_untrusted.push(IgnoredUntrusted {
                    source: source.clone(),
                    key,
                    count,
                });
            }
        };
        if let Some(file::Object(p)) = &mut file.permissions {
            note("permissions.allow", p.allow.take().map_or(0, |a| a.len()));
            let looser = p
                .default_mode
                .as_deref()
                .is_some_and(|m| !matches!(m, "default" | "manual" | "plan" | "dontAsk"));
            if looser {
                p.default_mode = None;
                note("permissions.defaultMode", 1);
            }
            note(
                "permissions.additionalDirectories",
                p.additional_directories.take().map_or(0, |d| d.len()),
            );
        }
        note("hooks", file.hooks.take().map_or(0, |h| h.len()));
        note("env", file.env.take().map_or(0, |e| e.len()));
        note(
            "apiKeyHelper",
            usize::from(file.api_key_helper.take().is_some()),
        );
        note(
            "otelHeadersHelper",
            usize::from(file.otel_headers_helper.take().is_some()),
        );
        note("statusLine", usize::from(file.status_line.take().is_some()));
        note("providers", file.providers.take().map_or(0, |p| p.len()));
        note(
            "enableAllProjectMcpServers",
            usize::from(file.enable_all_project_mcp_servers.take() == Some(true)),
        );
        note(
            "enabledMcpjsonServers",
            file.enabled_mcpjson_servers.take().map_or(0, |s| s.len()),
        );
        if let Some(file::Object(s)) = &mut file.sandbox {
            sandbox::withhold_untrusted(s, &mut note);
        }
        file
    }

    /// Merges settings texts given lowest first (what [`Settings::load`] does
    /// once the files are read).
    pub fn from_layers(
        layers: impl IntoIterator<Item = (Source, String)>,
        home_dir: Option<&Path>,
    ) -> Result<Settings, ConfigError> {
        let mut settings = Settings::default();
        for (source, text) in layers {
            let parsed = file::parse(&source, &text)?;
            settings.merge(Arc::new(source), parsed, home_dir);
        }
        Ok(settings)
    }

    fn merge(&mut self, source: Arc<Source>, file: FileSettings, home_dir: Option<&Path>) {
        let sourced = |value| Sourced {
            value,
            source: source.clone(),
        };
        let sourced_dir = |value| Sourced {
            value,
            source: source.clone(),
        };
        let FileSettings {
            model,
            fallback_model,
            permissions,
            env,
            hooks,
            disable_all_hooks,
            api_key_helper,
            otel_headers_helper,
            cleanup_period_days,
            include_co_authored_by,
            attribution,
            enable_all_project_mcp_servers,
            enabled_mcpjson_servers,
            disabled_mcpjson_servers,
            auto_compact_enabled,
            output_style,
            status_line,
            providers,
            model_prices,
            sandbox,
            worktree,
            auto_mode,
            use_auto_mode_during_plan,
            skip_auto_permission_prompt,
            extra,
            unknown,
        } = file;
        self.warnings.extend(
            unknown
                .into_iter()
                .map(|(key, line)| SettingsWarning::UnknownKey {
                    path: source.path.clone(),
                    line,
                    suggestion: unknown_keys::suggest(&key),
                    key,
                }),
        );
        // Scalars: the highest source that sets the key wins.
        set(&mut self.model, model);
        set(&mut self.fallback_model, fallback_model);
        set(&mut self.api_key_helper, api_key_helper.map(sourced));
        set(
            &mut self.otel_headers_helper,
            otel_headers_helper.map(sourced),
        );
        set(&mut self.cleanup_period_days, cleanup_period_days);
        set(&mut self.include_co_authored_by, include_co_authored_by);
        set(&mut self.attribution, attribution);
        set(
            &mut self.enable_all_project_mcp_servers,
            enable_all_project_mcp_servers,
        );
        set(&mut self.auto_compact_enabled, auto_compact_enabled);
        set(&mut self.output_style, output_style);
        set(&mut self.status_line, status_line);
        set(
            &mut self.worktree_base,
            worktree.and_then(|file::Object(w)| w.base_ref),
        );
        set(
            &mut self.use_auto_mode_during_plan,
            use_auto_mode_during_plan,
        );
        set(
            &mut self.skip_auto_permission_prompt,
            skip_auto_permission_prompt,
        );
        if let Some(file::Object(a)) = auto_mode {
            self.auto_mode.push((source.clone(), Value::Object(a)));
        }
        self.disable_all_hooks = disable_all_hooks.unwrap_or(self.disable_all_hooks);
        let mut extra = extra;
        if matches!(source.scope(), Scope::Project | Scope::Local) {
            // A checked-out repository cannot remap the user's keystrokes.
            for key in USER_ONLY_KEYS {
                extra.remove(*key);
            }
        }
        self.extra.extend(extra);
        // Maps: by key, the highest source wins.
        self.env.extend(env.unwrap_or_default());
        self.providers.extend(providers.unwrap_or_default());
        self.model_prices.extend(model_prices.unwrap_or_default());
        // Arrays: concatenated without repeats.
        extend(&mut self.enabled_mcpjson_servers, enabled_mcpjson_servers);
        extend(&mut self.disabled_mcpjson_servers, disabled_mcpjson_servers);
        if let Some(hooks) = hooks.filter(|h| !h.is_empty()) {
            self.hooks.push((source.clone(), hooks));
        }
        if let Some(file::Object(s)) = sandbox {
            self.sandbox.merge(&source, s, home_dir);
        }
        if let Some(file::Object(p)) = permissions {
            self.sandbox.merge_rules(
                &source,
                p.allow.as_deref().unwrap_or_default(),
                p.deny.as_deref().unwrap_or_default(),
                home_dir,
            );
            let perms = &mut self.permissions;
            for (list, rules) in [
                (&mut perms.allow, p.allow),
                (&mut perms.ask, p.ask),
                (&mut perms.deny, p.deny),
            ] {
                for rule in rules.unwrap_or_default() {
                    if !list.iter().any(|r| r.value == rule) {
                        list.push(sourced(rule));
                    }
                }
            }
            set(&mut perms.default_mode, p.default_mode.map(sourced));
            for dir in p.additional_directories.unwrap_or_default() {
                let dir = resolve_dir(&dir, source.root(), home_dir);
                if !perms.additional_directories.iter().any(|d| d.value == dir) {
                    perms.additional_directories.push(sourced_dir(dir));
                }
            }
            perms.disable_bypass_permissions_mode |= p.disable_bypass_permissions_mode.is_some();
            if p.disable_auto_mode.is_some() && perms.disable_auto_mode.is_none() {
                perms.disable_auto_mode = Some(source.clone());
            }
            set(
                &mut perms.deny_instead_of_prompting,
                p.deny_instead_of_prompting,
            );
        }
        self.sources.push(source);
    }

    /// Every source's `autoMode` object, lowest first. Only user settings and
    /// `--settings` may shape the classifier (a repository cannot widen what
    /// it allows): the caller filters by [`Source::scope`] and warns about the rest.
    pub fn auto_mode_by_source(&self) -> &[(Arc<Source>, Value)] {
        &self.auto_mode
    }

    /// `useAutoModeDuringPlan` (default true): plan mode classifies what it
    /// would ask about, when auto mode is available.
    pub fn use_auto_mode_during_plan(&self) -> bool {
        self.use_auto_mode_during_plan.unwrap_or(true)
    }

    /// `skipAutoPermissionPrompt`: no explanation when auto mode is first switched on.
    pub fn skip_auto_permission_prompt(&self) -> bool {
        self.skip_auto_permission_prompt.unwrap_or(false)
    }

    /// The merged `sandbox` object.
    pub fn sandbox(&self) -> &SandboxSettings {
        &self.sandbox
    }

    /// The sources that were read (files that exist, and `--settings`), lowest first.
    pub fn sources(&self) -> impl Iterator<Item = &Source> {
        self.sources.iter().map(|s| s.as_ref())
    }

    /// `model`: an alias (`sonnet`) or a full id.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// `providers`, merged by name (the highest source's entry wins).
    pub fn providers(&self) -> &BTreeMap<String, Provider> {
        &self.providers
    }

    /// `modelPrices`, merged by model name.
    pub fn model_prices(&self) -> &BTreeMap<String, ModelPrice> {
        &self.model_prices
    }

    /// `fallbackModel` (a string is a one-model chain).
    pub fn fallback_model(&self) -> Option<&[String]> {
        self.fallback_model.as_deref()
    }

    pub fn permissions(&self) -> &Permissions {
        &self.permissions
    }

    /// `env`, merged by variable (the highest source wins). Claude Code applies
    /// it over the inherited environment, for the session and every subprocess.
    pub fn env(&self) -> &BTreeMap<String, String> {
        &self.env
    }

    /// `worktree.baseRef`: which ref `--worktree` branches from (default
    /// [`WorktreeBase::Fresh`]).
    pub fn worktree_base(&self) -> WorktreeBase {
        self.worktree_base.unwrap_or_default()
    }

    /// `otelHeadersHelper`: a `/bin/sh` command printing the telemetry
    /// exporters' headers as a JSON object (see
    /// [`run_otel_headers_helper`](crate::run_otel_headers_helper)).
    pub fn otel_headers_helper(&self) -> Option<&Sourced<String>> {
        self.otel_headers_helper.as_ref()
    }

    /// `apiKeyHelper`: a `/bin/sh` command printing the API key (see
    /// [`run_api_key_helper`](crate::run_api_key_helper)).
    pub fn api_key_helper(&self) -> Option<&Sourced<String>> {
        self.api_key_helper.as_ref()
    }

    /// `cleanupPeriodDays` (≥ 1), else [`DEFAULT_CLEANUP_PERIOD_DAYS`].
    pub fn cleanup_period_days(&self) -> u32 {
        self.cleanup_period_days
            .unwrap_or(DEFAULT_CLEANUP_PERIOD_DAYS)
    }

    /// `includeCoAuthoredBy` (Claude Code's default: true).
    pub fn include_co_authored_by(&self) -> bool {
        self.include_co_authored_by.unwrap_or(true)
    }

    /// `attribution` (the newer form of `includeCoAuthoredBy`), as written.
    pub fn attribution(&self) -> Option<&Map<String, Value>> {
        self.attribution.as_ref()
    }

    /// `autoCompactEnabled` (default: true).
    pub fn auto_compact_enabled(&self) -> bool {
        self.auto_compact_enabled.unwrap_or(true)
    }

    pub fn output_style(&self) -> Option<&str> {
        self.output_style.as_deref()
    }

    /// `statusLine`, as written.
    pub fn status_line(&self) -> Option<&Map<String, Value>> {
        self.status_line.as_ref()
    }

    /// `enableAllProjectMcpServers`.
    pub fn enable_all_project_mcp_servers(&self) -> bool {
        self.enable_all_project_mcp_servers.unwrap_or(false)
    }

    /// `enabledMcpjsonServers` of every source.
    pub fn enabled_mcpjson_servers(&self) -> &[String] {
        &self.enabled_mcpjson_servers
    }

    /// `disabledMcpjsonServers` of every source.
    pub fn disabled_mcpjson_servers(&self) -> &[String] {
        &self.disabled_mcpjson_servers
    }

    /// `disableAllHooks` set to true by any source that is read later than the
    /// last one setting it to false (highest wins).
    pub fn disable_all_hooks(&self) -> bool {
        self.disable_all_hooks
    }

    /// Every source's `hooks` object (events → matcher groups, unparsed),
    /// lowest first, for a hooks engine that names the file in its errors.
    /// Empty when `disableAllHooks` is set.
    pub fn hooks_by_source(&self) -> Vec<(&Source, Value)> {
        if self.disable_all_hooks {
            return Vec::new();
        }
        self.hooks
            .iter()
            .map(|(source, hooks)| (source.as_ref(), hooks_value(hooks.iter())))
            .collect()
    }

    /// All sources' `hooks` in one object: per event, the matcher groups of
    /// every source, lowest first (all of them run). `{}` when
    /// `disableAllHooks` is set.
    pub fn hooks_json(&self) -> Value {
        let mut merged: BTreeMap<&String, Vec<Value>> = BTreeMap::new();
        if !self.disable_all_hooks {
            for (event, groups) in self.hooks.iter().flat_map(|(_, h)| h) {
                merged
                    .entry(event)
                    .or_default()
                    .extend(groups.iter().cloned());
            }
        }
        hooks_value(merged.iter().map(|(k, v)| (*k, v)))
    }

    /// What project and local settings set but an untrusted workspace may not
    /// (see [`IgnoredUntrusted`]), in file order. Empty when trusted.
    pub fn ignored_untrusted(&self) -> &[IgnoredUntrusted] {
        &self.ignored_untrusted
    }

    /// Top-level keys tack does not know, as written (highest source wins).
    pub fn unknown_keys(&self) -> &Map<String, Value> {
        &self.extra
    }

    /// What the user should hear about the files read (keys nothing reads,
    /// with file:line and a suggestion), lowest source first. The library
    /// prints nothing.
    pub fn warnings(&self) -> &[SettingsWarning] {
        &self.warnings
    }
}

fn hooks_value<'a>(events: impl Iterator<Item = (&'a String, &'a Vec<Value>)>) -> Value {
    Value::Object(
        events
            .map(|(event, groups)| (event.clone(), Value::Array(groups.clone())))
            .collect(),
    )
}

fn set<T>(slot: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *slot = value;
    }
}

fn extend(list: &mut Vec<String>, values: Option<Vec<String>>) {
    for v in values.unwrap_or_default() {
        if !list.contains(&v) {
            list.push(v);
        }
    }
}

fn resolve_dir(dir: &str, root: &Path, home_dir: Option<&Path>) -> PathBuf {
    match (
        dir.strip_prefix("~/").or((dir == "~").then_some("")),
        home_dir,
    ) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => root.join(dir),
    }
}
