//! Generates the Rust types of the protobuf packages, with serde derives so a config file
//! can carry exactly the shape of a `config.v1.Snapshot`, plus the gRPC clients and servers
//! of `config.v1.ConfigService` and `usage.v1.UsageService`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    // SAFETY: build scripts are single-threaded; nothing else reads the environment here.
    unsafe { std::env::set_var("PROTOC", protoc) };
    let files = ["proto/config/v1/config.proto", "proto/usage/v1/usage.proto"];
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .type_attribute(".", "#[derive(serde::Serialize, serde::Deserialize)]")
        .type_attribute(".", "#[serde(default)]")
        .compile_protos(&files, &["proto"])?;
    // Each file by name: a change inside a nested folder was seen to be missed when only the
    // top folder was named, leaving a stale build in one of the target's variants.
    for file in files {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-changed=proto");
    Ok(())
}
