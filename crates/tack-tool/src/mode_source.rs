//! Where a tool reads the session's permission mode: the gate holds it, and
//! the session hands its tool environment a reader of the gate's (never a
//! copy that could go stale). SendMessage's plan approval sends the lead's
//! mode as Claude Code's does.

use std::fmt;
use std::sync::{Arc, OnceLock};

/// Reads the session's permission mode, as Claude Code names it
/// (`default`, `acceptEdits`, `plan`, …); `None` once the session is gone.
#[derive(Clone)]
pub struct ModeSource(Arc<dyn Fn() -> Option<String> + Send + Sync>);

impl ModeSource {
    pub fn new(read: impl Fn() -> Option<String> + Send + Sync + 'static) -> ModeSource {
        ModeSource(Arc::new(read))
    }

    /// The mode now.
    pub fn read(&self) -> Option<String> {
        (self.0)()
    }
}

impl fmt::Debug for ModeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ModeSource")
    }
}

/// The slot a session fills once its gate exists (after its tool
/// environment was made).
#[derive(Debug, Clone, Default)]
pub struct ModeSlot(Arc<OnceLock<ModeSource>>);

impl ModeSlot {
    /// Fills the slot; a second fill is ignored (the first gate stays).
    pub fn set(&self, source: ModeSource) {
        let _ = self.0.set(source);
    }

    /// The session's mode now, `None` when no gate was set.
    pub fn read(&self) -> Option<String> {
        self.0.get().and_then(ModeSource::read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn a_slot_reads_the_source_as_it_is_now_and_keeps_the_first() {
        let slot = ModeSlot::default();
        assert_eq!(slot.read(), None);
        let mode = Arc::new(Mutex::new("plan".to_string()));
        let held = mode.clone();
        slot.set(ModeSource::new(move || Some(held.lock().unwrap().clone())));
        let shared = slot.clone();
        assert_eq!(shared.read().as_deref(), Some("plan"));
        *mode.lock().unwrap() = "acceptEdits".into();
        assert_eq!(shared.read().as_deref(), Some("acceptEdits"));
        slot.set(ModeSource::new(|| Some("default".into())));
        assert_eq!(slot.read().as_deref(), Some("acceptEdits"));
    }
}
