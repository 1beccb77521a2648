//! Usage records as they cross machines and disks: a protobuf `ReportBatch` as the control
//! plane receives it (decoded, then each record judged by the ingest rules of
//! `control_plane::domain::usage::check`, a pure function), and the lines of the gateway's
//! spool (JSON `UsageRecord`s, judged the same way once in wire form). Whatever decodes must
//! encode and decode back to itself. Nothing may panic.

#![no_main]

use control_plane::domain::usage::{self as rules, RecordView};
use control_plane::store::usage::UsageRow;
use control_plane::sync::usage::to_row;
use gateway::usage::UsageRecord;
use gateway::usage::report::to_wire;
use libfuzzer_sys::fuzz_target;
use prost::Message;
use proto::usage::v1 as pb;

/// The ingest's clock: records may lie up to a day ahead of it.
const NOW: i64 = 1_700_000_000;

fuzz_target!(|data: &[u8]| {
    if let Ok(batch) = pb::ReportBatch::decode(data) {
        let again = pb::ReportBatch::decode(batch.encode_to_vec().as_slice()).ok();
        assert_eq!(again.as_ref(), Some(&batch), "a batch re-encodes to itself");
        for record in batch.records {
            judge(record);
        }
    }
    for line in data.split(|b| *b == b'\n') {
        if let Ok(record) = serde_json::from_slice::<UsageRecord>(line) {
            let text = serde_json::to_vec(&record).expect("a record serializes");
            let again = serde_json::from_slice::<UsageRecord>(&text).ok();
            assert_eq!(
                again.as_ref(),
                Some(&record),
                "a spool line re-encodes to itself"
            );
            judge(to_wire(record));
        }
    }
});

/// The control plane's verdict on one wire record, and the text it would store if refused;
/// the channel failures it carries are validated as the health check reads them.
fn judge(record: pb::UsageRecord) {
    for f in control_plane::health::failures_of(std::slice::from_ref(&record)) {
        assert!(f.channel_id > 0 && f.message.len() <= 500, "{f:?}");
    }
    let row = to_row(record);
    let verdict = rules::check(&view(&row), NOW);
    if let Err(rejection) = verdict {
        let _ = rules::storable(&rejection.message, 1024);
        let _ = rules::storable(&format!("{row:?}"), 4096);
    }
}

/// The fields the rules read, as the store hands them over (`UsageRow::view`, private there).
fn view(r: &UsageRow) -> RecordView<'_> {
    RecordView {
        request_id: &r.request_id,
        kind: r.kind,
        created_at: r.created_at,
        user_id: r.user_id,
        token_id: r.token_id,
        channel_id: r.channel_id,
        quota: r.quota,
        prompt_tokens: r.prompt_tokens,
        completion_tokens: r.completion_tokens,
        use_time: r.use_time,
        texts: [
            ("username", &r.username, rules::MAX_NAME),
            ("token_name", &r.token_name, rules::MAX_NAME),
            ("group", &r.group, rules::MAX_NAME),
            ("model_name", &r.model_name, rules::MAX_NAME),
            ("ip", &r.ip, rules::MAX_NAME),
            ("content", &r.content, rules::MAX_TEXT),
            ("other", &r.other, rules::MAX_TEXT),
            ("request_id", &r.request_id, rules::MAX_REQUEST_ID),
        ],
    }
}
