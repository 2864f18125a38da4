//! What a run's status record says (`struct ws_status_record`, `cuda/core/status.cuh`): the
//! error a failed run ends with, its fault message formatted as Rust formats it. The codes
//! are `wsdsl-abi`'s.

use crate::contract::program::too_many_children;
use crate::contract::Program;
use crate::error::Error;
use wsdsl_abi::status::Status;

pub(crate) use wsdsl_abi::status::STATUS_WORDS;

/// The error a status record `[code, arg0, .., arg4]` describes, if any.
pub(crate) fn status_result<P: Program>(w: &[u64], queue: impl Fn(u64) -> String) -> Result<(), Error> {
    let arg = |i: usize| w.get(i).copied().unwrap_or(0);
    match Status::from_code(arg(0)) {
        Some(Status::Ok) => Ok(()),
        Some(Status::Overflow) => Err(Error::QueueOverflow { queue: queue(arg(1)), capacity: arg(3), needed: arg(2) }),
        Some(Status::Fault) => Err(Error::DeviceFault {
            site: match P::FAULT_SITES.get(arg(1) as usize) {
                Some(template) => fault_message(template, &[arg(2), arg(3), arg(4), arg(5)]),
                None => format!("fault site {}", arg(1)),
            },
        }),
        Some(Status::Frames) => Err(Error::FramePoolExhausted { capacity: arg(2) }),
        Some(Status::Peer) => Err(Error::StoppedByPeer),
        Some(Status::Children) if arg(3) == 1 => Err(Error::InvalidConfig(format!(
            "a `{}` task spawned more than {} children in one run of a handler, the most a run across GPUs allows \
             (a join counter keeps other GPUs' deliveries in its high half); spawn them over several rounds of the \
             complete handler, or run on one GPU",
            P::TASK_NAMES.get(arg(1) as usize).copied().unwrap_or("?"),
            arg(2)
        ))),
        Some(Status::Children) => Err(too_many_children::<P>(arg(1) as usize, arg(2) as u32)),
        // The watchdog's stop is reported by the watchdog itself; any other code is not the templates'.
        Some(Status::Stopped) | None => Err(Error::Driver { during: "reading the run status", message: format!("unknown status code {}", arg(0)) }),
    }
}

/// A fault site's message with the values the device reported put in, formatted as Rust
/// formats them (see [`Program::FAULT_SITES`] for the placeholders). Anything that is not a
/// well-formed placeholder is kept as written.
pub(crate) fn fault_message(template: &str, values: &[u64]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let value = tail.strip_prefix('{').and_then(|t| Some((t, t.find('}')?))).and_then(|(t, end)| {
            let (word, kind) = t[..end].split_once(':')?;
            let bits = *values.get(word.parse::<usize>().ok()?)?;
            Some((format_value(bits, kind)?, end + 2))
        });
        match value {
            Some((text, len)) => {
                out.push_str(&text);
                rest = &tail[len..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// One value of a fault message: `kind` is `u`/`i` (an integer zero- or sign-extended to 64
/// bits), `b` (a bool), `f32`/`f64` (the float's bits; `f32?`/`f64?` for `{:?}`), or
/// `e:Name=discriminant,...` (a field-less enum, shown by its variant's name).
fn format_value(bits: u64, kind: &str) -> Option<String> {
    Some(match kind {
        "u" => bits.to_string(),
        "i" => (bits as i64).to_string(),
        "b" => (bits != 0).to_string(),
        "f32" => f32::from_bits(bits as u32).to_string(),
        "f32?" => format!("{:?}", f32::from_bits(bits as u32)),
        "f64" => f64::from_bits(bits).to_string(),
        "f64?" => format!("{:?}", f64::from_bits(bits)),
        _ => {
            let variants = kind.strip_prefix("e:")?;
            let named = variants.split(',').find_map(|v| {
                let (name, d) = v.split_once('=')?;
                (d.parse::<u64>().ok()? == bits).then_some(name)
            });
            named.map_or_else(|| bits.to_string(), str::to_string)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::fault_message;

    #[test]
    fn fault_messages_format_values_as_rust_does() {
        let v = [3, (-5i64) as u64, 1.0f64.to_bits(), 1.5f32.to_bits() as u64];
        assert_eq!(
            fault_message("a.rs:1: the len is {0:u} but {1:i}; {2:f64} {2:f64?} {3:f32?} {{x}}", &v),
            "a.rs:1: the len is 3 but -5; 1 1.0 1.5 {x}"
        );
        assert_eq!(fault_message("{0:b} {1:b} {0:e:Small=0,Big=3}", &[3, 0]), "true false Big");
        assert_eq!(fault_message("{0:e:Small=0} {9:u} {0:zz} {0 } }", &[7]), "7 {9:u} {0:zz} {0 } }");
        assert_eq!(fault_message("{", &[]), "{");
    }
}
