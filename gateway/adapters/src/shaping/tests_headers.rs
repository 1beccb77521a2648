//! Golden tests for header override resolution and pass-through.
