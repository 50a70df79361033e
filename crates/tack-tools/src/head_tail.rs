//! A bounded capture of a byte stream: the first `head` bytes and the last `tail`
//! bytes, with everything in between counted and dropped. Memory stays at
//! `head + tail` however much the stream produces.

use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct HeadTail {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl HeadTail {
    pub(crate) fn new(head_cap: usize, tail_cap: usize) -> Self {
        HeadTail {
            head_cap,
            tail_cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = self.head_cap - self.head.len();
        if room > 0 {
            let n = room.min(chunk.len());
            self.head.extend_from_slice(&chunk[..n]);
            chunk = &chunk[n..];
        }
        if chunk.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&chunk[chunk.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + chunk.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(chunk);
        }
    }

    /// Bytes pushed so far.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// True while nothing has been dropped: head and tail hold every byte.
    pub(crate) fn is_whole(&self) -> bool {
        self.total == (self.head.len() + self.tail.len()) as u64
    }

    /// Every byte pushed, in order; only meaningful while [`is_whole`](Self::is_whole).
    pub(crate) fn whole_bytes(&self) -> Vec<u8> {
        let mut all = self.head.clone();
        all.extend(self.tail.iter());
        all
    }

    /// The text in at most about `budget` bytes: all of it if it fits (and
    /// nothing was dropped), else the first and last `budget / 2` bytes around a
    /// marker stating how many bytes are not shown. Cuts fall on character
    /// boundaries. `budget` must not exceed `head + tail`.
    pub(crate) fn render(&self, budget: usize) -> String {
        let whole = self.is_whole().then(|| self.whole_bytes());
        if let Some(all) = &whole
            && all.len() <= budget
        {
            return String::from_utf8_lossy(all).into_owned();
        }
        // While nothing is dropped, the tail may reach back into the head.
        let (head_src, tail_src): (&[u8], Vec<u8>) = match &whole {
            Some(all) => (all, all.clone()),
            None => (&self.head, self.tail.iter().copied().collect()),
        };
        let head_len = (budget / 2).min(head_src.len());
        let head = trim_incomplete_end(&head_src[..head_len]);
        let tail_len = (budget - budget / 2).min(tail_src.len());
        let tail = trim_incomplete_start(&tail_src[tail_src.len() - tail_len..]);
        let dropped = self.total - (head.len() + tail.len()) as u64;
        format!(
            "{}\n\n... [{dropped} bytes truncated] ...\n\n{}",
            String::from_utf8_lossy(head),
            String::from_utf8_lossy(tail)
        )
    }
}

/// `bytes` without a UTF-8 sequence cut off at its end.
fn trim_incomplete_end(bytes: &[u8]) -> &[u8] {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes,
        Err(e) if e.error_len().is_none() => &bytes[..e.valid_up_to()],
        Err(_) => bytes,
    }
}

/// `bytes` without UTF-8 continuation bytes at its start.
fn trim_incomplete_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .take(3)
        .take_while(|b| (**b & 0xC0) == 0x80)
        .count();
    &bytes[skip..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_head_and_tail_and_counts_what_is_dropped() {
        let mut ht = HeadTail::new(4, 4);
        for chunk in [&b"0123"[..], b"4567", b"89ab", b"cd"] {
            ht.push(chunk);
        }
        assert_eq!(ht.render(8), "0123\n\n... [6 bytes truncated] ...\n\nabcd");
        // A smaller budget shows less and says so, with the real count.
        assert_eq!(ht.render(4), "01\n\n... [10 bytes truncated] ...\n\ncd");
        assert_eq!(ht.total(), 14);
        assert!(!ht.is_whole());
    }

    #[test]
    fn small_output_is_whole_unless_over_the_budget() {
        let mut ht = HeadTail::new(4, 4);
        ht.push(b"hello");
        assert!(ht.is_whole());
        assert_eq!(ht.whole_bytes(), b"hello");
        assert_eq!(ht.render(8), "hello");
        assert_eq!(ht.render(2), "h\n\n... [3 bytes truncated] ...\n\no");
        // Whole but over the budget: the tail reaches back into the head.
        let mut ht = HeadTail::new(6, 6);
        ht.push(b"0123456");
        assert_eq!(ht.render(4), "01\n\n... [3 bytes truncated] ...\n\n56");
    }

    #[test]
    fn cuts_on_char_boundaries() {
        let mut ht = HeadTail::new(8, 8);
        ht.push("ééééééééé".as_bytes()); // 18 bytes
        let out = ht.render(7);
        assert_eq!(out, "é\n\n... [12 bytes truncated] ...\n\néé");
        // A tail cut inside a character drops the stray continuation byte.
        let mut ht = HeadTail::new(8, 8);
        ht.push("aéééééééé".as_bytes()); // 17 bytes
        assert_eq!(ht.render(6), "aé\n\n... [12 bytes truncated] ...\n\né");
    }
}
