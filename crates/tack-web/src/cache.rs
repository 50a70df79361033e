//! WebFetch's cache of fetched pages: keyed by URL, entries expire after a TTL
//! (15 minutes, like Claude Code's), and the whole cache holds at most a byte
//! budget of page text, the least recently used pages going first.
//!
//! Only converted pages are cached (not redirects, not errors), and the prompt is
//! applied afresh on every call: a second question about the same page costs a
//! small-model call but no fetch.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use lru::LruCache;

use crate::fetch::Page;

/// Where the cache reads the time; tests pass one they move by hand.
pub trait Clock: Send + Sync + fmt::Debug {
    fn now(&self) -> Instant;
}

/// The monotonic system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

#[derive(Debug)]
pub(crate) struct PageCache {
    ttl: Duration,
    max_bytes: usize,
    clock: Arc<dyn Clock>,
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    entries: LruCache<String, Entry>,
    bytes: usize,
}

#[derive(Debug)]
struct Entry {
    page: Arc<Page>,
    stored_at: Instant,
    size: usize,
}

impl PageCache {
    pub(crate) fn new(ttl: Duration, max_bytes: usize, clock: Arc<dyn Clock>) -> Self {
        PageCache {
            ttl,
            max_bytes,
            clock,
            inner: Mutex::new(Inner {
                entries: LruCache::unbounded(),
                bytes: 0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // The map and the byte count are updated together; a panic elsewhere
        // cannot leave them half-updated.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The page stored for `url`, unless it has expired (then it is dropped).
    pub(crate) fn get(&self, url: &str) -> Option<Arc<Page>> {
        let now = self.clock.now();
        let mut inner = self.lock();
        let fresh = inner
            .entries
            .get(url)
            .map(|e| now.saturating_duration_since(e.stored_at) < self.ttl)?;
        if fresh {
            return inner.entries.get(url).map(|e| e.page.clone());
        }
        inner.remove(url);
        None
    }

    /// Stores `page` for `url`, evicting the least recently used pages to stay
    /// within the byte budget. A page bigger than the whole budget is not stored.
    pub(crate) fn put(&self, url: &str, page: Arc<Page>) {
        let size = url.len() + page.text.len();
        if size > self.max_bytes {
            return;
        }
        let stored_at = self.clock.now();
        let mut inner = self.lock();
        inner.remove(url);
        inner.bytes += size;
        inner.entries.put(
            url.to_owned(),
            Entry {
                page,
                stored_at,
                size,
            },
        );
        while inner.bytes > self.max_bytes {
            let Some((_, old)) = inner.entries.pop_lru() else {
                break;
            };
            inner.bytes -= old.size;
        }
    }

    #[cfg(test)]
    fn stored_bytes(&self) -> usize {
        self.lock().bytes
    }
}

impl Inner {
    fn remove(&mut self, url: &str) {
        if let Some(old) = self.entries.pop(url) {
            self.bytes -= old.size;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[derive(Debug)]
    struct ManualClock {
        start: Instant,
        offset: Mutex<Duration>,
    }

    impl ManualClock {
        fn advance(&self, by: Duration) {
            *self.offset.lock().unwrap() += by;
        }
    }

    impl Clock for ManualClock {
        fn now(&self) -> Instant {
            self.start + *self.offset.lock().unwrap()
        }
    }

    fn page(text: &str) -> Arc<Page> {
        Arc::new(Page {
            url: "https://example.com/".into(),
            status: 200,
            status_text: "OK".into(),
            content_type: "text/plain".into(),
            bytes: text.len(),
            truncated: false,
            text: text.into(),
        })
    }

    fn cache(max_bytes: usize) -> (PageCache, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock {
            start: Instant::now(),
            offset: Mutex::new(Duration::ZERO),
        });
        let cache = PageCache::new(Duration::from_secs(900), max_bytes, clock.clone());
        (cache, clock)
    }

    fn text(hit: Option<Arc<Page>>) -> Option<String> {
        hit.map(|p| p.text.clone())
    }

    #[test]
    fn entries_expire_after_the_ttl() {
        let (cache, clock) = cache(1000);
        cache.put("a", page("alpha"));
        clock.advance(Duration::from_secs(899));
        assert_eq!(text(cache.get("a")), Some("alpha".into()));
        clock.advance(Duration::from_secs(1));
        assert_eq!(text(cache.get("a")), None);
        assert_eq!(cache.stored_bytes(), 0);
    }

    #[test]
    fn the_byte_budget_evicts_least_recently_used() {
        // Each entry: 1 byte of key + 10 of text.
        let (cache, _) = cache(33);
        cache.put("a", page("aaaaaaaaaa"));
        cache.put("b", page("bbbbbbbbbb"));
        cache.put("c", page("cccccccccc"));
        assert!(cache.get("a").is_some()); // a is now the most recent
        cache.put("d", page("dddddddddd"));
        assert_eq!(text(cache.get("b")), None);
        assert!(cache.get("a").is_some() && cache.get("c").is_some() && cache.get("d").is_some());
        assert_eq!(cache.stored_bytes(), 33);
        // Replacing an entry does not count it twice; an oversized page is skipped.
        cache.put("d", page("d"));
        assert_eq!(cache.stored_bytes(), 24);
        cache.put("e", page(&"e".repeat(40)));
        assert_eq!(text(cache.get("e")), None);
        assert_eq!(cache.stored_bytes(), 24);
    }
}
