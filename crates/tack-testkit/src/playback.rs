//! Plays an event sequence over time: pacing, block gaps, stalls and faults.
//!
//! The whole timeline is decided up front as a list of [`Step`]s; the response
//! body is a stream that walks it, so each event is handed to hyper (and flushed)
//! the moment it is due, and a client that hangs up simply drops the stream.

use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use axum::body::Body;
use bytes::Bytes;
use tokio::sync::watch;

use crate::reply::{MessageReply, StreamEnd};
use crate::sse::SseEvent;
#[cfg(test)]
use crate::sse::error_event;

/// One action on the response body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Send(Bytes),
    Wait(Duration),
    /// Fail the body, which makes hyper drop the connection mid-response.
    Abort,
}

/// The timeline for `events` under the timing and faults of `reply`, as SSE;
/// a scripted mid-stream error is the event `error_event` makes of it.
pub(crate) fn sse_steps(
    reply: &MessageReply,
    events: &[SseEvent],
    error_event: impl Fn(&str, &str) -> SseEvent,
) -> Vec<Step> {
    steps(reply, events, error_event, SseEvent::encode)
}

/// The timeline for `events`, each (and a scripted error event) put on the
/// wire by `encode`.
pub(crate) fn steps(
    reply: &MessageReply,
    events: &[SseEvent],
    error_event: impl Fn(&str, &str) -> SseEvent,
    encode: fn(&SseEvent) -> Bytes,
) -> Vec<Step> {
    let mut steps = Vec::new();
    // A fault scheduled past the end happens after the last event.
    let end_at = reply.end.as_ref().map(|end| match end {
        StreamEnd::Cut { after } | StreamEnd::Error { after, .. } => (*after).min(events.len()),
    });
    for sent in 0..=events.len() {
        if let Some((after, duration)) = reply.stall
            && after == sent
        {
            steps.push(Step::Wait(duration));
        }
        if end_at == Some(sent) {
            match &reply.end {
                Some(StreamEnd::Cut { .. }) => steps.push(Step::Abort),
                Some(StreamEnd::Error {
                    error_type,
                    message,
                    ..
                }) => steps.push(Step::Send(encode(&error_event(error_type, message)))),
                None => {}
            }
            break;
        }
        let Some(event) = events.get(sent) else {
            break;
        };
        if sent > 0 && !reply.pacing.is_zero() {
            steps.push(Step::Wait(reply.pacing));
        }
        steps.push(Step::Send(encode(event)));
        if event.name == "content_block_stop" && !reply.block_gap.is_zero() {
            steps.push(Step::Wait(reply.block_gap));
        }
    }
    steps
}

/// What the server keeps about its streamed bodies.
#[derive(Default)]
pub(crate) struct Streams {
    /// Bodies dropped before their last step, which is what happens when the
    /// client hangs up mid-stream (a scripted [`Step::Abort`] does not count).
    pub(crate) abandoned: watch::Sender<usize>,
    /// When each body that played to its end handed over its last bytes, in
    /// the order they ended.
    pub(crate) ended: Mutex<Vec<SystemTime>>,
}

/// A streaming body that performs `steps` in order, counted in `streams` when
/// given.
pub(crate) fn body(steps: Vec<Step>, streams: Option<Arc<Streams>>) -> Body {
    let watch = Watch {
        streams,
        finished: false,
    };
    let stream = futures::stream::unfold(
        (steps.into_iter(), watch),
        |(mut steps, mut watch)| async move {
            loop {
                let Some(step) = steps.next() else {
                    watch.finish();
                    watch.ended();
                    return None;
                };
                match step {
                    Step::Wait(duration) => tokio::time::sleep(duration).await,
                    Step::Send(bytes) => return Some((Ok(bytes), (steps, watch))),
                    Step::Abort => {
                        watch.finish();
                        // hyper drops its write buffer when a body fails; pausing once
                        // lets it flush the events already handed over, so only the
                        // rest of the stream is lost.
                        tokio::task::yield_now().await;
                        let error = io::Error::new(
                            io::ErrorKind::ConnectionAborted,
                            "tack-testkit: scripted cut",
                        );
                        return Some((Err(error), (steps, watch)));
                    }
                }
            }
        },
    );
    Body::from_stream(stream)
}

/// Lives as long as the body; counts the body as abandoned if it goes before
/// its last step.
struct Watch {
    streams: Option<Arc<Streams>>,
    finished: bool,
}

impl Watch {
    /// The body reached its end (or its scripted cut): not abandoned.
    fn finish(&mut self) {
        self.finished = true;
    }

    /// The body's last bytes were taken by the server: the time is recorded.
    fn ended(&self) {
        if let Some(streams) = &self.streams {
            let now = SystemTime::now();
            streams
                .ended
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(now);
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let (false, Some(streams)) = (self.finished, &self.streams) {
            streams.abandoned.send_modify(|count| *count += 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn events(n: usize) -> Vec<SseEvent> {
        (0..n)
            .map(|_| SseEvent {
                name: "ping",
                data: json!({"type": "ping"}),
            })
            .collect()
    }

    fn ping() -> Step {
        Step::Send(Bytes::from_static(
            b"event: ping\ndata: {\"type\":\"ping\"}\n\n",
        ))
    }

    #[test]
    fn pacing_goes_between_events_and_stall_after_the_nth() {
        let reply = MessageReply::default()
            .pacing(Duration::from_millis(5))
            .stall_after(1, Duration::from_secs(1));
        let steps = sse_steps(&reply, &events(2), error_event);
        assert_eq!(
            steps,
            vec![
                ping(),
                Step::Wait(Duration::from_secs(1)),
                Step::Wait(Duration::from_millis(5)),
                ping(),
            ]
        );
    }

    #[test]
    fn cut_past_the_end_aborts_after_the_last_event() {
        let reply = MessageReply::default().cut_after(10);
        assert_eq!(
            sse_steps(&reply, &events(2), error_event),
            vec![ping(), ping(), Step::Abort]
        );
    }

    #[test]
    fn error_event_replaces_the_rest() {
        let reply = MessageReply::default().error_event_after(1, "api_error", "boom");
        let steps = sse_steps(&reply, &events(3), error_event);
        assert_eq!(
            steps,
            vec![
                ping(),
                Step::Send(error_event("api_error", "boom").encode())
            ]
        );
    }
}
