//! Errors as the command line names them: a field of the library's
//! fields is the flag of the same name (`batch` is `--batch`). The command
//! line and the web page, which shows the command line's messages, both
//! report errors this way.

use crate::error::Error;

/// The error as the command line says it: a field is named as its flag.
pub fn as_flags(e: Error) -> Error {
    match e {
        Error::Field { field, message } => Error::Input {
            flag: format!("--{field}"),
            // A library message naming the `force` or `hw` field names the
            // flag (`--force`, `--hw`).
            message: message
                .replace("`force`", "--force")
                .replace("(`hw`)", "(--hw)"),
        },
        Error::MissingInput { field, message } => {
            let bare = message == format!("give `{field}`");
            Error::Usage {
                flag: format!("--{field}"),
                message: if bare {
                    // The flag is already named; say what is wrong with it.
                    "required, and not given (--help says what it takes)".to_string()
                } else {
                    message
                        .replace(
                            "give an intensity, or flops and bytes",
                            "give --intensity, or --flops and --bytes",
                        )
                        .replace(&format!("give `{field}`"), &format!("give --{field}"))
                },
            }
        }
        Error::At { point, error } => Error::At {
            point,
            error: Box::new(as_flags(*error)),
        },
        e => e,
    }
}
