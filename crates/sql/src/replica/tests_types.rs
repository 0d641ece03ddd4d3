//! Every column type through encode, decode and apply.
