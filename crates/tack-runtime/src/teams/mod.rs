//! Agent teams and messages between sessions, as Claude Code has them: the
//! team files ([`files`]), and (wired into the session) the inbox watch, the
//! `SendMessage` and `ListAgents` tools, teammates, and the registry through
//! which sessions on one machine find each other.

pub mod assignment;
pub mod backend;
pub(crate) mod enlist;
pub(crate) mod events;
pub mod files;
pub mod idle_notice;
pub(crate) mod left;
pub mod list_agents;
pub(crate) mod member_process;
pub mod peer;
pub mod plan_approval;
pub(crate) mod process_teammate;
pub mod records;
pub mod relay;
pub mod route;
pub mod send_message;
pub mod session;
pub(crate) mod teammate;
pub mod tools;
pub mod watch;
pub mod wrap;
