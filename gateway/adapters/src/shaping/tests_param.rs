//! Golden tests for param override: parsing, every mode, conditions.
