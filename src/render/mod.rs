//! Drawings of a plan for `runner show`. Pure: they return text.

mod dot_render;
mod json_render;
mod mermaid_render;
#[cfg(test)]
mod snapshot_tests;
mod tree_render;

pub use dot_render::dot;
pub use json_render::json;
pub use mermaid_render::mermaid;
pub use tree_render::tree;
