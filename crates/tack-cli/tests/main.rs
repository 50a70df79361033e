//! All of this crate's integration tests, as modules of one test binary.
//!
//! One binary per crate rather than one per file: each binary links the whole
//! dependency graph, and 73 of them filled CI's disk (3.5 GB of executables) and
//! spent most of the build linking. nextest still runs each test in its own process.

#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

mod agent_worktrees;
mod agents;
mod attach;
mod auto_mode;
mod background;
mod background_files;
mod batch;
mod batch_kill;
mod cloud;
mod common;
mod custom_commands;
mod demo;
mod doctor;
mod events;
mod fidelity;
mod file_modes;
mod first_run;
mod git_context;
mod hardening;
mod hardening2;
mod hardening3;
mod harness;
mod hook_events;
mod hook_handlers;
mod hostile_bodies;
mod hot_symbols;
mod interactive;
mod interactive_modes;
mod kill;
mod kubernetes;
mod llama;
mod mcp;
mod mcp_scopes;
mod mentions;
mod models;
mod monitor;
mod otel;
mod output_styles;
mod permissions;
mod plugin_auto_update;
mod plugins;
mod plugins_catalog;
mod plugins_cli;
mod plugins_hostile;
mod print;
mod print_ends;
mod providers;
mod ray;
mod recovery;
mod resume_guard;
mod rewind;
mod rules;
mod runtime;
mod sandbox;
mod sandbox_network;
mod sandbox_plants;
mod schedule;
mod schedule_idle;
mod sdk;
mod sdk_e2e;
mod sdk_features;
mod sdk_protocol;
mod sdk_resume;
mod sdk_run_end;
mod sdk_suite;
mod serve;
mod serve_clients;
mod settings;
mod skills;
mod stream_json_samples;
mod structured_output;
mod subagent_tasks;
mod tasks;
mod terminal;
mod tls;
mod transcripts;
mod usage_dedup;
mod worktree;
mod worktree_hooks;
