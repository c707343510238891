/* Spectral analysis of the pulse and breathing traces on FFTW (single
 * precision, fftw3f): Welch power spectral density with a Hann window,
 * overlapping segments and zero-padding, an interpolated peak, and the SNR as
 * de Haan & Jeanne (2013) define it.
 *
 * A ccore_spectrum holds the FFTW plan and every buffer for one segment and
 * FFT size, made once by ccore_spectrum_create and reused for every window:
 * the analysis calls allocate nothing. FFTW's planner is not thread-safe, so
 * create and destroy serialise on a lock private to this module; one handle is
 * used by one thread at a time, and different handles run in parallel. */
#ifndef CCORE_SPECTRUM_H
#define CCORE_SPECTRUM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccore_spectrum ccore_spectrum;

typedef struct {
    /** Sampling rate of the traces, Hz (> 0). */
    float sample_rate_hz;
    /** Samples per Welch segment (>= 8). */
    uint32_t segment_length;
    /** FFT length: the segment zero-padded to this (a power of two >=
     *  segment_length; 0 = the next power of two >= 4 * segment_length). */
    uint32_t fft_length;
    /** Segment overlap, 0 <= overlap < 1 (0.5 is the usual Welch choice). */
    float overlap;
} ccore_spectrum_config;

/** A peak of a PSD inside a band. */
typedef struct {
    /** Interpolated peak frequency, Hz (parabolic fit on the log power). */
    float frequency_hz;
    /** PSD value at the peak bin. */
    float power;
    /** Index of the peak bin. */
    uint32_t bin;
    uint32_t reserved;
} ccore_spectral_peak;

/** Makes the plan and buffers. Errors: -EINVAL (bad config), -ENOMEM. */
int ccore_spectrum_create(const ccore_spectrum_config *config, ccore_spectrum **out);
void ccore_spectrum_destroy(ccore_spectrum *spectrum);

/** Bins in a PSD: fft_length / 2 + 1, from 0 Hz to the Nyquist frequency. */
uint32_t ccore_spectrum_bin_count(const ccore_spectrum *spectrum);

/** Frequency spacing of the bins, Hz: sample_rate / fft_length. */
float ccore_spectrum_bin_hz(const ccore_spectrum *spectrum);

/** Welch PSD of `signal` (count >= segment_length samples): the mean of the
 *  Hann-windowed (periodic Hann), zero-padded segments' periodograms, each
 *  segment's mean removed first. Segments start every
 *  max(1, round(segment_length * (1 - overlap))) samples; the last one ends at
 *  or before the end of the signal. Writes
 *  ccore_spectrum_bin_count() values to `psd` (psd_count must be at least
 *  that). Scaled as a one-sided density (power per Hz), so a sinusoid of
 *  amplitude A integrates to about A^2 / 2. Errors: -EINVAL. */
int ccore_spectrum_welch(ccore_spectrum *spectrum, const float *signal, uint32_t count, float *psd,
                         uint32_t psd_count);

/** The largest PSD bin inside [low_hz, high_hz], refined by a parabolic fit
 *  through it and its neighbours (only when it is a local maximum with
 *  positive neighbours). `psd` holds ccore_spectrum_bin_count() values.
 *  Errors: -EINVAL (empty band), -ENODATA (the band holds no power at all). */
int ccore_spectrum_peak(const ccore_spectrum *spectrum, const float *psd, float low_hz, float high_hz,
                        ccore_spectral_peak *out);

/** de Haan's SNR in dB for a fundamental at f0_hz: the power within ±0.1 Hz
 *  of f0 and within ±0.2 Hz of 2*f0 (the first harmonic, when it lies in the
 *  band), against the rest of the power in [low_hz, high_hz]; only bins
 *  inside the band count on either side. Returns -INFINITY when there is no
 *  signal power and +INFINITY when there is no other power in the band; NAN
 *  for invalid arguments (an empty band, f0_hz <= 0). */
float ccore_spectrum_snr_db(const ccore_spectrum *spectrum, const float *psd, float f0_hz, float low_hz,
                            float high_hz);

#ifdef __cplusplus
}
#endif
#endif
