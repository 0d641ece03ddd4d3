//! protocol
pub mod codec;
pub mod consts;
pub mod error;
pub mod packet;
pub mod response;
pub mod row;
pub mod value;
pub use error::ProtoError;
