//! The runtime's side of the event stream.
//!
//! Unbounded on purpose: what needs backpressure already has it (the loop
//! waits for the runtime, which persists before it emits), and nothing that
//! emits (a hook, the permission gate, start-up) can then block on a front end
//! that is not reading yet.

use tokio::sync::mpsc;

use crate::event::{Notice, RuntimeEvent};

#[derive(Debug, Clone)]
pub(crate) struct Emitter(pub(crate) mpsc::UnboundedSender<RuntimeEvent>);

impl Emitter {
    /// Emits `event`; `false` if the front end is gone.
    pub(crate) fn emit(&self, event: RuntimeEvent) -> bool {
        self.0.send(event).is_ok()
    }

    pub(crate) fn notice(&self, notice: Notice) {
        self.emit(RuntimeEvent::Notice(notice));
    }
}
