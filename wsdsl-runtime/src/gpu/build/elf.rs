//! What the runtime reads of a CUBIN (an ELF64 file), without a GPU: the function symbols
//! (tests and checks use them to see that a compiled or linked image really holds the kernels
//! asked for), the stack frame sizes ptxas recorded by function (`stack.rs` sizes the stack with them), a
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

/// The stack frame of each function of `image`, in bytes, with the function's symbol (a
/// mangled C++ name for a `static` device function, which ptxas prefixes with the kernel that
/// holds it: `$wsdsl_megakernel$_ZN..._7f_solveEjjPb`); `None` if `image` records none.
///
/// Read from the call frame information ptxas writes (`.debug_frame`): each function's
/// description sets its canonical frame address to the stack pointer plus its frame, which is
/// what a call of it takes. The `EIATTR_FRAME_SIZE` records ([`frame_sizes`]) are the fallback
/// only: CUDA 13's ptxas gives a function it places inside a kernel's code the kernel's frame
/// there (528 bytes for a helper whose frame ptxas itself reports as 4,128: its locals held a
/// 4 KiB array).
pub fn function_frames(image: &[u8]) -> Option<Vec<(String, u32)>> {
    debug_frames(image).filter(|f| !f.is_empty()).or_else(|| info_frames(image))
}

/// The `EIATTR_FRAME_SIZE` records of `image` by symbol.
fn info_frames(image: &[u8]) -> Option<Vec<(String, u32)>> {
    const EIATTR_FRAME_SIZE: u8 = 0x11;
    let symbols = symbols(image)?;
    let frames: Vec<(String, u32)> = info_values(image, EIATTR_FRAME_SIZE)?
        .into_iter()
        .filter(|v| v.len() == 8)
        .filter_map(|v| Some((symbols.get(u32_at(v, 0)? as usize).map_or_else(String::new, |s| s.0.clone()), u32_at(v, 4)?)))
        .collect();
    (!frames.is_empty()).then_some(frames)
}

/// Each function's frame from `image`'s `.debug_frame` (DWARF call frame information, in
/// ptxas's 64-bit format): for each frame description, the largest offset its instructions
/// give the canonical frame address, and the function symbol at the address it describes
/// (its relocation's symbol plus addend). `None` where anything does not parse.
fn debug_frames(image: &[u8]) -> Option<Vec<(String, u32)>> {
    const SHT_RELA: u32 = 4;
    const STT_FUNC: u8 = 2;
    let named = named_sections(image)?;
    let (frame_index, &(_, (_, offset, size, _, _), _)) = named.iter().enumerate().find(|(_, s)| s.0 == ".debug_frame")?;
    let data = bytes(image, offset, size)?;
    // Where a relocation puts an address: (offset in .debug_frame, symbol, addend).
    let mut relocated = Vec::new();
    for (_, (kind, offset, size, _, entsize), info) in &named {
        if *kind == SHT_RELA && *info == frame_index && *entsize >= 24 {
            for r in bytes(image, *offset, *size)?.chunks_exact(*entsize) {
                relocated.push((u64_at(r, 0)?, u64_at(r, 8)? >> 32, u64_at(r, 16)?));
            }
        }
    }
    let symbols = symbol_places(image)?;
    let mut frames = Vec::new();
    let mut at = 0;
    while at + 12 <= data.len() {
        // 64-bit units: 0xffffffff, a 64-bit length, then the CIE id (all ones) or pointer.
        if u32_at(data, at)? != u32::MAX {
            return None;
        }
        let length = u64_at(data, at + 4)?;
        let body = at + 12;
        let end = body.checked_add(length)?;
        if end > data.len() {
            return None;
        }
        if u64_at(data, body)? != usize::MAX {
            let location_at = body + 8;
            let location = match relocated.iter().find(|r| r.0 == location_at) {
                Some(&(_, sym, addend)) => symbols.get(sym)?.1.wrapping_add(addend),
                None => u64_at(data, location_at)?,
            };
            let section = relocated.iter().find(|r| r.0 == location_at).and_then(|r| symbols.get(r.1)).map(|s| s.2);
            let cfa = largest_cfa_offset(data.get(body + 24..end)?)?;
            let function = symbols.iter().find(|s| s.3 == STT_FUNC && s.1 == location && section.is_none_or(|sec| s.2 == sec));
            if let (Some(f), Some(cfa)) = (function, cfa) {
                frames.push((f.0.clone(), u32::try_from(cfa).ok()?));
            }
        }
        at = end;
    }
    Some(frames)
}

/// The largest offset that the call frame instructions `code` give the canonical frame
/// address (`DW_CFA_def_cfa`, `DW_CFA_def_cfa_offset` and their signed forms, in units of the
/// CIE's data alignment for those, which ptxas's frames never use); `None` if they do not parse,
/// `Some(None)` if they set none.
fn largest_cfa_offset(code: &[u8]) -> Option<Option<u64>> {
    fn uleb(code: &[u8], at: &mut usize) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *code.get(*at)?;
            *at += 1;
            value |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }
    let mut largest = None;
    let mut at = 0;
    while at < code.len() {
        let op = code[at];
        at += 1;
        match op >> 6 {
            1 | 3 => continue,           // advance_loc, restore: operand in the opcode
            2 => {
                uleb(code, &mut at)?;     // offset: register in the opcode, a factored offset
                continue;
            }
            _ => {}
        }
        let skip_block = |at: &mut usize| -> Option<()> {
            let len = uleb(code, at)? as usize;
            *at = at.checked_add(len)?;
            Some(())
        };
        match op {
            0x00 | 0x0a | 0x0b => {}                     // nop, remember_state, restore_state
            0x01 => at += 8,                             // set_loc
            0x02 => at += 1,                             // advance_loc1
            0x03 => at += 2,                             // advance_loc2
            0x04 => at += 4,                             // advance_loc4
            0x06 | 0x07 | 0x08 | 0x0d => {
                uleb(code, &mut at)?;
            }
            0x05 | 0x09 | 0x11 | 0x14 | 0x15 => {
                uleb(code, &mut at)?;
                uleb(code, &mut at)?;
            }
            0x0c | 0x12 => {
                uleb(code, &mut at)?;
                let offset = uleb(code, &mut at)?;
                largest = largest.max(Some(offset));
            }
            0x0e | 0x13 => {
                let offset = uleb(code, &mut at)?;
                largest = largest.max(Some(offset));
            }
            0x0f => skip_block(&mut at)?,
            0x10 | 0x16 => {
                uleb(code, &mut at)?;
                skip_block(&mut at)?;
            }
            _ => return None,
        }
    }
    Some(largest)
}

/// The section headers of `image` with their names and `sh_info`.
fn named_sections(image: &[u8]) -> Option<Vec<(String, Section, usize)>> {
    let sections = sections(image)?;
    let (shoff, shentsize, shstrndx) = (u64_at(image, 0x28)?, u16_at(image, 0x3a)?, u16_at(image, 0x3e)?);
    let &(_, names_at, names_size, _, _) = sections.get(shstrndx)?;
    let names = bytes(image, names_at, names_size)?;
    sections
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let header = bytes(image, shoff.checked_add(i.checked_mul(shentsize)?)?, 0x40)?;
            let name = names.get(u32_at(header, 0)? as usize..).unwrap_or_default();
            let name = String::from_utf8_lossy(&name[..name.iter().position(|&b| b == 0).unwrap_or(0)]).into_owned();
            Some((name, s, u32_at(header, 0x2c)? as usize))
        })
        .collect()
}

/// Every symbol's name, value, section index and type, by its index.
fn symbol_places(image: &[u8]) -> Option<Vec<(String, usize, usize, u8)>> {
    const SHT_SYMTAB: u32 = 2;
    let sections = sections(image)?;
    let &(_, offset, size, link, entsize) = sections.iter().find(|s| s.0 == SHT_SYMTAB && s.4 >= 24)?;
    let names = symbols(image)?;
    let entries = bytes(image, offset, size)?.chunks_exact(entsize);
    Some(names.into_iter().zip(entries).map(|((name, kind, _), sym)| (name, u64_at(sym, 8).unwrap_or(usize::MAX), u16_at(sym, 6).unwrap_or(0), kind)).collect::<Vec<_>>())
        .filter(|_| link < sections.len())
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
    use super::{frame_sizes, function_frames, function_size, function_symbols, largest_cfa_offset, register_count};

    #[test]
    fn a_frame_is_the_largest_offset_of_the_canonical_frame_address() {
        // ptxas's description of a helper with a 4 KiB array (CUDA 13, sm_90): advance, then
        // the CFA at R1 + 4,128, a saved register, a register's expression, padding.
        let code = [
            0x04, 4, 0, 0, 0, 0x0c, 0x81, 0x80, 0x80, 0x28, 0xa0, 0x20, 0x04, 4, 0, 0, 0, 0x05, 0x95, 0x80, 0x80, 0x28, 0x02, 0x10, 0x82,
            0x80, 0x80, 0x28, 0x07, 0x92, 0x81, 0x80, 0x80, 0x28, 0xe0, 0x5f, 0x00, 0x00,
        ];
        assert_eq!(largest_cfa_offset(&code), Some(Some(4128)));
        assert_eq!(largest_cfa_offset(&[0x00, 0x00]), Some(None));
        assert_eq!(largest_cfa_offset(&[0x0c, 0x81]), None, "cut short");
        assert_eq!(largest_cfa_offset(&[0x3f]), None, "an unknown instruction");
    }

    #[test]
    fn anything_but_elf64_has_no_symbols() {
        assert_eq!(function_symbols(b"not an ELF file at all, but long enough to have a header......"), None);
        assert_eq!(function_symbols(b"\x7fELF"), None);
        assert_eq!(frame_sizes(b"\x7fELF"), None);
        assert_eq!(function_frames(b"\x7fELF"), None);
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
