//! What the runtime reads of a CUBIN (an ELF64 file), without a GPU: the function symbols
//! (tests and checks use them to see that a compiled or linked image really holds the kernels
//! asked for), the stack frame sizes ptxas recorded (`stack.rs` sizes the stack with them), a
//! function's registers per thread (what bounds its blocks per SM) and its code's size.

/// A section header: (type, offset, size, link, entry size).
type Section = (u32, usize, usize, usize, usize);

/// The section headers of `image`, or `None` if it is not a little-endian ELF64 file.
fn sections(image: &[u8]) -> Option<Vec<Section>> {
    if image.len() < 64 || &image[..4] != b"\x7fELF" || image[4] != 2 || image[5] != 1 {
        return None;
    }
    let (shoff, shentsize, shnum) = (u64_at(image, 0x28)?, u16_at(image, 0x3a)?, u16_at(image, 0x3c)?);
    (0..shnum)
        .map(|i| {
            let header = bytes(image, shoff.checked_add(i.checked_mul(shentsize)?)?, 0x40)?;
            Some((u32_at(header, 4)?, u64_at(header, 0x18)?, u64_at(header, 0x20)?, u32_at(header, 0x28)? as usize, u64_at(header, 0x38)?))
        })
        .collect()
}

/// `len` bytes of `b` from `at`, if it holds them (offsets come from the file: no sum may wrap).
fn bytes(b: &[u8], at: usize, len: usize) -> Option<&[u8]> {
    b.get(at..at.checked_add(len)?)
}
fn u16_at(b: &[u8], o: usize) -> Option<usize> {
    bytes(b, o, 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)
}
fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    bytes(b, o, 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()))
}
fn u64_at(b: &[u8], o: usize) -> Option<usize> {
    bytes(b, o, 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize)
}

/// Every symbol's name, type (`STT_*`) and size in bytes, by its index in `image`'s symbol
/// table, or `None` if `image` is not a little-endian ELF64 file with one.
fn symbols(image: &[u8]) -> Option<Vec<(String, u8, usize)>> {
    const SHT_SYMTAB: u32 = 2;
    let sections = sections(image)?;
    let &(_, offset, size, link, entsize) = sections.iter().find(|s| s.0 == SHT_SYMTAB && s.4 >= 24)?;
    let &(_, strtab, strsize, _, _) = sections.get(link)?;
    let strings = bytes(image, strtab, strsize)?;
    // A name that does not parse is empty: it matches nothing, and spoils no other.
    let name = |sym: &[u8]| {
        let name = strings.get(u32::from_le_bytes(sym[..4].try_into().unwrap()) as usize..).unwrap_or_default();
        String::from_utf8_lossy(&name[..name.iter().position(|&b| b == 0).unwrap_or(0)]).into_owned()
    };
    let code_size = |sym: &[u8]| u64_at(sym, 16).unwrap_or(0);
    Some(bytes(image, offset, size)?.chunks_exact(entsize).map(|sym| (name(sym), sym[4] & 0xf, code_size(sym))).collect())
}

/// The names of the function symbols (`STT_FUNC`) in `image`'s symbol table, or `None` if
/// `image` is not a little-endian ELF64 file with one.
pub fn function_symbols(image: &[u8]) -> Option<Vec<String>> {
    const STT_FUNC: u8 = 2;
    Some(symbols(image)?.into_iter().filter(|s| s.1 == STT_FUNC).map(|s| s.0).collect())
}

/// The size in bytes of the function `name`'s code in `image` (its symbol's size: 16 bytes an
/// instruction on sm_70 and later), or `None` if `image` has no such function.
pub fn function_size(image: &[u8], name: &str) -> Option<usize> {
    const STT_FUNC: u8 = 2;
    symbols(image)?.into_iter().find(|s| s.1 == STT_FUNC && s.0 == name).map(|s| s.2)
}

/// The `.nv.info` attributes of `image` with the format `EIFMT_SVAL` and attribute
/// `wanted`, as their bytes, or `None` if `image` is no ELF64 file.
///
/// A `.nv.info` section (type `SHT_CUDA_INFO`) is a list of attributes: a format byte, an
/// attribute byte, then a 16-bit value, or for the format `EIFMT_SVAL` a 16-bit size and that
/// many bytes.
fn info_values(image: &[u8], wanted: u8) -> Option<Vec<&[u8]>> {
    const SHT_CUDA_INFO: u32 = 0x7000_0000;
    const EIFMT_SVAL: u8 = 4;
    let mut values = Vec::new();
    for (kind, offset, size, _, _) in sections(image)? {
        if kind != SHT_CUDA_INFO {
            continue;
        }
        let info = bytes(image, offset, size)?;
        let mut at = 0;
        while at + 4 <= info.len() {
            let (format, attribute) = (info[at], info[at + 1]);
            let len = if format == EIFMT_SVAL { u16_at(info, at + 2)? } else { 0 };
            if format == EIFMT_SVAL && attribute == wanted {
                values.push(bytes(info, at + 4, len)?);
            }
            at += 4 + len;
        }
    }
    Some(values)
}

/// The stack frame of each function of `image` in bytes (its locals, spills and saved
/// registers, without its callees), from the `EIATTR_FRAME_SIZE` records of its `.nv.info`
/// sections (a symbol index and the frame size, both 32-bit); `None` if `image` is no ELF64
/// file or records none.
pub fn frame_sizes(image: &[u8]) -> Option<Vec<u32>> {
    const EIATTR_FRAME_SIZE: u8 = 0x11;
    let frames: Vec<u32> = info_values(image, EIATTR_FRAME_SIZE)?.into_iter().filter(|v| v.len() == 8).filter_map(|v| u32_at(v, 4)).collect();
    (!frames.is_empty()).then_some(frames)
}

/// The registers per thread that ptxas gave the function `name` of `image` (its
/// `EIATTR_REGCOUNT` record: a symbol index and the count, both 32-bit), which bound how many
/// blocks of it an SM holds; `None` if `image` records none for it.
pub fn register_count(image: &[u8], name: &str) -> Option<u32> {
    const EIATTR_REGCOUNT: u8 = 0x2f;
    let symbols = symbols(image)?;
    info_values(image, EIATTR_REGCOUNT)?
        .into_iter()
        .filter(|v| v.len() == 8)
        .find(|v| u32_at(v, 0).and_then(|i| symbols.get(i as usize)).is_some_and(|s| s.0 == name))
        .and_then(|v| u32_at(v, 4))
}

#[cfg(test)]
mod tests {
    use super::{frame_sizes, function_size, function_symbols, register_count};

    #[test]
    fn anything_but_elf64_has_no_symbols() {
        assert_eq!(function_symbols(b"not an ELF file at all, but long enough to have a header......"), None);
        assert_eq!(function_symbols(b"\x7fELF"), None);
        assert_eq!(frame_sizes(b"\x7fELF"), None);
        assert_eq!(register_count(b"\x7fELF", "wsdsl_megakernel"), None);
        assert_eq!(function_size(b"\x7fELF", "wsdsl_megakernel"), None);
        // Section headers said to lie at the end of the address space: no sum may wrap.
        let mut header = vec![0u8; 64];
        header[..6].copy_from_slice(b"\x7fELF\x02\x01");
        header[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
        header[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        header[0x3c..0x3e].copy_from_slice(&2u16.to_le_bytes());
        assert_eq!(function_symbols(&header), None);
        assert_eq!(frame_sizes(&header), None);
    }
}
