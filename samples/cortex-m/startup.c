/* startup.c - what runs before main on a Cortex-M4F/M7/M33/M55 with no vendor SDK: the vector table,
 * and a reset handler that enables the FPU, copies .data from flash, zeroes .bss, runs main and
 * reports its status through semihosting. Symbols come from mps2.ld. */
#include "semihosting.h"

#include <stdint.h>

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];

int main(void);
void reset_handler(void);

/* Any fault or unexpected interrupt ends the run with a failing status. */
static void fault_handler(void) {
  semihosting_write("kws: fault\n");
  semihosting_exit(2);
}

/* Coprocessor Access Control: CP10 and CP11 (the FPU, and on the M55 Helium too) full access,
 * bits 20-23. The M33 and M55 start in the Secure state: this is the Secure CPACR. */
#define CPACR (*(volatile uint32_t *)0xE000ED88u)

/* Runs before the FPU is on, so it must not touch floating-point registers: clang only uses them
 * for float values and these loops move words. */
void reset_handler(void) {
  CPACR |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  for (uint32_t *from = __data_load, *to = __data_start; to < __data_end;)
    *to++ = *from++;
  for (uint32_t *word = __bss_start; word < __bss_end;)
    *word++ = 0;
  semihosting_exit(main());
}

/* The vector table: initial stack pointer, then reset and the 14 system exceptions; the sample
 * enables no device interrupt, so none follow. Slot 7 is reserved on Armv7-M and SecureFault on
 * Armv8-M (M33, M55). */
__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))__stack_top,
    reset_handler,
    fault_handler, /* NMI */
    fault_handler, /* HardFault */
    fault_handler, /* MemManage */
    fault_handler, /* BusFault */
    fault_handler, /* UsageFault */
    fault_handler, /* SecureFault (Armv8-M) */
    0, 0, 0,       /* reserved */
    fault_handler, /* SVCall */
    fault_handler, /* DebugMonitor */
    0,             /* reserved */
    fault_handler, /* PendSV */
    fault_handler, /* SysTick */
};
