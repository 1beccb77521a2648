//! The contract between the control plane and gateways: generated protobuf types.
//!
//! Every message derives serde (all fields default when absent), so a config file in JSON
//! or YAML has exactly the shape of the gRPC message.

/// `config.v1`: the gateway's whole configuration as one snapshot.
pub mod config {
    /// Version 1 of the config schema.
    pub mod v1 {
        #![allow(clippy::doc_lazy_continuation, missing_docs)]
        include!(concat!(env!("OUT_DIR"), "/config.v1.rs"));

        /// Token status: enabled.
        pub const TOKEN_ENABLED: i32 = 1;
        /// User status: enabled.
        pub const USER_ENABLED: i32 = 1;
        /// Channel status: enabled.
        pub const CHANNEL_ENABLED: i32 = 1;
        /// User role from which `sk-KEY-CHANNELID` may pin a channel.
        pub const ROLE_ADMIN: i32 = 10;
    }
}

/// `usage.v1`: usage records reported by gateways in acknowledged batches.
pub mod usage {
    /// Version 1 of the usage schema.
    pub mod v1 {
        #![allow(clippy::doc_lazy_continuation, missing_docs)]
        include!(concat!(env!("OUT_DIR"), "/usage.v1.rs"));

        /// Log type of a successful, billed request.
        pub const LOG_CONSUME: i32 = 2;
        /// Log type of a failed request.
        pub const LOG_ERROR: i32 = 5;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::config::v1::Snapshot;
    use prost::Message;

    #[test]
    fn json_round_trips_through_protobuf() {
        let json = r#"{"version":7,"tokens":[{"id":1,"key_hash":"ab","user_id":2,"status":1}],
            "channels":[{"id":3,"model_mapping":{"a":"b"},"models":["a"]}],
            "pricing":{"model_ratio":{"a":1.5}},"options":{"pre_consumed_quota":0}}"#;
        let snap: Snapshot = serde_json::from_str(json).unwrap();
        assert_eq!(snap.options.as_ref().unwrap().pre_consumed_quota, Some(0));
        let bytes = snap.encode_to_vec();
        let back = Snapshot::decode(bytes.as_slice()).unwrap();
        assert_eq!(back, snap);
        assert_eq!(back.channels[0].model_mapping["a"], "b");
        assert_eq!(back.pricing.unwrap().model_ratio["a"], 1.5);
    }
}
