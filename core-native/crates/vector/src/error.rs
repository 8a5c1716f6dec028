use std::fmt;

/// Errors of this crate. `code()` gives a stable string for the napi layer.
#[derive(Debug)]
pub enum Error {
    /// A caller mistake: bad dimension, bad key, k = 0, ...
    InvalidArgument(String),
    /// FAISS (through the shim) threw; `code` is the shim's CTXV_ERR_*.
    Faiss { code: i32, message: String },
    /// File system error while saving or loading.
    Io(std::io::Error),
    /// The saved index is damaged (bad magic, checksum mismatch, truncated):
    /// rebuild it from the source of truth.
    Corrupt(String),
    /// The saved index was written by another format version or with another
    /// dimension/metric: rebuild it from the source of truth.
    Incompatible(String),
    /// The in-memory structures contradict each other (a bug): the call fails instead of
    /// panicking, and the index can be rebuilt from the source of truth.
    Internal(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidArgument(_) => "INVALID_ARGUMENT",
            Error::Faiss { .. } => "VECTOR_INDEX_FAISS",
            Error::Io(e) if e.kind() == std::io::ErrorKind::NotFound => "VECTOR_INDEX_NOT_FOUND",
            Error::Io(_) => "VECTOR_INDEX_IO",
            Error::Corrupt(_) => "VECTOR_INDEX_CORRUPT",
            Error::Incompatible(_) => "VECTOR_INDEX_INCOMPATIBLE",
            Error::Internal(_) => "INTERNAL",
        }
    }

    /// True when the caller should rebuild the index from the source of truth.
    pub fn needs_rebuild(&self) -> bool {
        matches!(self, Error::Corrupt(_) | Error::Incompatible(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            Error::Faiss { code, message } => write!(f, "FAISS error {code}: {message}"),
            Error::Io(e) => write!(f, "I/O error: {e}"),
            Error::Corrupt(m) => write!(f, "corrupt vector index: {m}"),
            Error::Incompatible(m) => write!(f, "incompatible vector index: {m}"),
            Error::Internal(m) => write!(f, "vector index inconsistent: {m}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}
