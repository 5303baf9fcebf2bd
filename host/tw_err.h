/* tickwheel error codes: every API call returns 0 (or a count) on success and
 * one of these, negative, on failure. tw_strerror() gives the message. */
#ifndef TW_ERR_H
#define TW_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

enum tw_err {
    TW_OK        = 0,
    TW_EINVAL    = -1, /* bad argument: NULL, zero budget, bad geometry */
    TW_ECORRUPT  = -2, /* timer not initialised, or its links are damaged */
    TW_ERANGE    = -3, /* interval runs past the end of 64-bit time */
    TW_ENODEV    = -4, /* no device there (or closed), or wrong ID or unsupported
                        * register-map version */
    TW_EIO       = -5, /* bus transaction failed */
    TW_ETIMEDOUT = -6, /* device did not respond in time */
    TW_EDEVICE   = -7, /* device returned an impossible value */
    TW_ENOMEM    = -8, /* caller's buffer is too small, or an allocation
                        * (a backend's, a program's) failed */
    TW_ESTATE    = -9, /* call not valid in this state (e.g. advance in real time) */
    TW_EBUSY     = -10, /* a resource the backend needs is held by another user
                         * (e.g. the IRQ's GPIO line) */
};

const char *tw_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
