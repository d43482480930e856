/*
 * A stand-in bcryptprimitives.dll for Wine 8 (Debian 12), which lacks it.
 *
 * Rust's standard library (1.78 and later) asks Windows for random bytes
 * with ProcessPrng from bcryptprimitives.dll, imported at load time: under
 * a Wine without that DLL every Rust .exe stops before main with
 * STATUS_DLL_NOT_FOUND (c0000135). scripts/test-platforms builds this file
 * with mingw-w64 and puts the DLL in its Wine prefix's system32; real
 * Windows (10 and later) has its own, and never sees this one.
 *
 * ProcessPrng fills the buffer from RtlGenRandom (advapi32's
 * SystemFunction036), which Wine implements.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
