//! `fdatasync` off the caller's path: a transcript line is written (so it
//! survives the process: `kill -9`, a panic, an OOM kill) before the append
//! returns, and made durable against a machine crash by a thread of the
//! transcript's own, while the caller goes on to send the request.
//!
//! Waiting for the sync cost 1-3 ms before every model call on this machine's
//! disk (start-up budget: 5 ms); the window it leaves is a kernel crash or
//! power loss in the milliseconds after a line was written, when the request it
//! precedes cannot be answered either. Requests made while a sync runs are
//! folded into one more sync. Dropping the syncer waits for the last one, so a
//! session that ends has its whole transcript on disk.

use std::fs::File;
use std::io;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

#[derive(Debug)]
pub(crate) struct Syncer {
    requests: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    /// The first failed sync, reported by the next request.
    failure: Arc<Mutex<Option<io::Error>>>,
}

impl Syncer {
    /// Starts the syncing thread for `file` (a clone of its descriptor).
    pub(crate) fn start(file: &File) -> io::Result<Syncer> {
        let file = file.try_clone()?;
        let (tx, rx) = mpsc::channel();
        let failure = Arc::new(Mutex::new(None));
        let thread = std::thread::Builder::new()
            .name("tack-transcript-sync".into())
            .spawn({
                let failure = failure.clone();
                move || sync_loop(&file, &rx, &failure)
            })?;
        Ok(Syncer {
            requests: Some(tx),
            thread: Some(thread),
            failure,
        })
    }

    /// Asks for a sync of everything written so far; returns at once. An
    /// earlier sync's failure is returned here (once).
    pub(crate) fn request(&self) -> io::Result<()> {
        if let Some(error) = self
            .failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            return Err(error);
        }
        match &self.requests {
            Some(tx) if tx.send(()).is_ok() => Ok(()),
            _ => Err(io::Error::other("the transcript's sync thread has stopped")),
        }
    }
}

fn sync_loop(file: &File, requests: &Receiver<()>, failure: &Mutex<Option<io::Error>>) {
    while requests.recv().is_ok() {
        // Everything asked for until now is covered by this one sync.
        while requests.try_recv().is_ok() {}
        if let Err(error) = file.sync_data() {
            failure
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(error);
        }
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        // Closing the channel lets the thread finish its last sync and stop.
        drop(self.requests.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn requests_return_at_once_and_drop_waits_for_the_last_sync() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let mut file = File::create(&path).unwrap();
        let syncer = Syncer::start(&file).unwrap();
        for i in 0..100 {
            writeln!(file, "{i}").unwrap();
            syncer.request().unwrap();
        }
        drop(syncer);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 100);
    }

    #[test]
    fn a_failed_sync_is_reported_by_a_later_request() {
        // fdatasync on /dev/null fails (EINVAL).
        let file = File::open("/dev/null").unwrap();
        let syncer = Syncer::start(&file).unwrap();
        syncer.request().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let error = loop {
            std::thread::sleep(std::time::Duration::from_millis(5));
            match syncer.request() {
                Err(e) => break e,
                Ok(()) => assert!(std::time::Instant::now() < deadline, "no failure reported"),
            }
        };
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        // Reported once.
        syncer.request().unwrap();
    }
}
