//! Whether a destination may be reached: `deniedDomains` first, then
//! `allowedDomains`, then the domains answered `AllowDomain` earlier, then a
//! [`NetworkAsk`]. Concurrent connections to a domain nobody has answered
//! for share one question. Every refusal is kept (the last
//! [`MAX_REFUSALS`]) until [`Decider::take_refusals`] drains them.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures::future::{BoxFuture, FutureExt, Shared};

use super::host::{Host, Pattern};
use super::{NetworkAsk, NetworkDecision, ProxyPolicy, Refusal};

/// Refusals kept between two `take_refusals` calls; older ones are dropped.
pub(crate) const MAX_REFUSALS: usize = 100;

pub(crate) const DENIED: &str = "denied by sandbox.network.deniedDomains";
/// The ask said no (the user, or a mode that cannot ask: `-p`, dontAsk).
pub(crate) const NOT_ALLOWED: &str = "not in sandbox.network.allowedDomains, and not allowed";

/// How a destination was let through: only a host named exactly in
/// `allowedDomains` may resolve to a loopback or link-local address (see
/// `upstream.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admission {
    /// An `allowedDomains` entry without wildcard names this host.
    Listed,
    /// A wildcard entry, or the user's answer.
    Other,
}

type Answer = Shared<BoxFuture<'static, NetworkDecision>>;

/// One question in flight, for the port of the connection that asked it.
struct Pending {
    port: u16,
    answer: Answer,
}

#[derive(Default)]
struct State {
    /// Domains answered `AllowDomain`, for the proxy's life.
    remembered: HashSet<String>,
    pending: HashMap<String, Pending>,
    refusals: VecDeque<Refusal>,
}

pub(crate) struct Decider {
    allowed: Vec<Pattern>,
    denied: Vec<Pattern>,
    ask: Arc<dyn NetworkAsk>,
    state: Mutex<State>,
}

impl std::fmt::Debug for Decider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decider")
            .field("allowed", &self.allowed)
            .field("denied", &self.denied)
            .finish_non_exhaustive()
    }
}

impl Decider {
    /// Entries that can match nothing (`*`, `*foo.com`, ...) are dropped.
    pub(crate) fn new(policy: &ProxyPolicy, ask: Arc<dyn NetworkAsk>) -> Decider {
        let read = |entries: &[String]| entries.iter().filter_map(|e| Pattern::parse(e)).collect();
        Decider {
            allowed: read(&policy.allowed_domains),
            denied: read(&policy.denied_domains),
            ask,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether an `allowedDomains` entry names `host` exactly.
    pub(crate) fn lists(&self, host: &Host) -> bool {
        self.allowed.iter().any(|p| p.names(host))
    }

    /// Decides one connection; a refusal is recorded before it is returned.
    pub(crate) async fn admit(&self, host: &Host, port: u16) -> Result<Admission, Refusal> {
        if let Some(decided) = self.by_patterns(host, port) {
            return decided;
        }
        let domain = host.text();
        loop {
            let (asked_port, answer) = match self.question(&domain, port) {
                Some(question) => question,
                None => return Ok(Admission::Other),
            };
            let decision = answer.clone().await;
            self.settle(&domain, &answer, decision);
            match decision {
                NetworkDecision::AllowDomain => return Ok(Admission::Other),
                NetworkDecision::AllowOnce if asked_port == port => return Ok(Admission::Other),
                NetworkDecision::Deny if asked_port == port => {
                    return Err(self.refuse(host, port, NOT_ALLOWED));
                }
                // Another connection's question, about another port: ask ours.
                NetworkDecision::AllowOnce | NetworkDecision::Deny => continue,
            }
        }
    }

    /// What the settings' entries say, if they say anything.
    fn by_patterns(&self, host: &Host, port: u16) -> Option<Result<Admission, Refusal>> {
        if self.denied.iter().any(|p| p.matches(host, port)) {
            return Some(Err(self.refuse(host, port, DENIED)));
        }
        let mut matching = self.allowed.iter().filter(|p| p.matches(host, port));
        let first = matching.next()?;
        let exact = first.is_exact() || matching.any(Pattern::is_exact);
        Some(Ok(if exact {
            Admission::Listed
        } else {
            Admission::Other
        }))
    }

    /// The question to wait for: one already in flight for this domain, or a
    /// new one. `None` when the domain was answered `AllowDomain` before.
    fn question(&self, domain: &str, port: u16) -> Option<(u16, Answer)> {
        let mut state = self.state();
        if state.remembered.contains(domain) {
            return None;
        }
        if let Some(pending) = state.pending.get(domain) {
            return Some((pending.port, pending.answer.clone()));
        }
        let ask = Arc::clone(&self.ask);
        let owned = domain.to_owned();
        let answer = async move { ask.decide(&owned, port).await }
            .boxed()
            .shared();
        let pending = Pending {
            port,
            answer: answer.clone(),
        };
        state.pending.insert(domain.to_owned(), pending);
        Some((port, answer))
    }

    /// The first waiter to see an answer retires its question (and
    /// remembers an `AllowDomain`) in one step, so a connection arriving
    /// meanwhile either shares the question or finds the domain remembered.
    fn settle(&self, domain: &str, answer: &Answer, decision: NetworkDecision) {
        let mut state = self.state();
        let current = state
            .pending
            .get(domain)
            .is_some_and(|p| p.answer.ptr_eq(answer));
        if current {
            state.pending.remove(domain);
            if decision == NetworkDecision::AllowDomain {
                state.remembered.insert(domain.to_owned());
            }
        }
    }

    /// Records a refusal (dropping the oldest past [`MAX_REFUSALS`]).
    pub(crate) fn refuse(&self, host: &Host, port: u16, reason: &str) -> Refusal {
        let refusal = Refusal {
            host: host.text(),
            port,
            reason: reason.to_owned(),
        };
        let mut state = self.state();
        if state.refusals.len() == MAX_REFUSALS {
            state.refusals.pop_front();
        }
        state.refusals.push_back(refusal.clone());
        refusal
    }

    pub(crate) fn take_refusals(&self) -> Vec<Refusal> {
        self.state().refusals.drain(..).collect()
    }
}
