/* semihosting.h - the two Arm semihosting calls the sample needs: text out and exit.
 * Under `qemu-system-arm -semihosting-config enable=on,target=native` the text goes to
 * qemu's stdout and the exit status becomes qemu's. On a board, a debug probe serves them. */
#ifndef KWS_SEMIHOSTING_H
#define KWS_SEMIHOSTING_H

/* SYS_WRITE0: writes a NUL-terminated string to the host's console. */
void semihosting_write(const char *text);
/* SYS_EXIT_EXTENDED: ends the program with `status` (0: success). */
_Noreturn void semihosting_exit(int status);

#endif
