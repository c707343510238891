/* The spectrum module (FFTW): a known sine comes back at its frequency with its power,
 * a pulse-like wave with its harmonic gives the fundamental and a high SNR, bad calls fail. */
#include <errno.h>
#include <stdlib.h>

#include "ccore/spectrum.h"
#include "ctest.h"

#define RATE 30.0f
#define COUNT 900 /* 30 s at 30 Hz */

static ccore_spectrum *make(void) {
    ccore_spectrum_config c = {.sample_rate_hz = RATE, .segment_length = 256, .fft_length = 1024, .overlap = 0.5f};
    ccore_spectrum *s = NULL;
    return ccore_spectrum_create(&c, &s) == 0 ? s : NULL;
}

/* Deterministic noise in [-1, 1]. */
static float noise(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / (float)(1u << 23) - 1.0f;
}

void test_spectrum_sine(void) {
    ccore_spectrum *s = make();
    REQUIRE(s);
    CHECK_INT(ccore_spectrum_bin_count(s), 513);
    CHECK_NEAR(ccore_spectrum_bin_hz(s), RATE / 1024, 1e-6);
    static float signal[COUNT], psd[513];
    const float f = 1.23f, amplitude = 2.0f;
    for (int i = 0; i < COUNT; i++) signal[i] = 5.0f + amplitude * sinf(2 * (float)M_PI * f * i / RATE);
    REQUIRE(ccore_spectrum_welch(s, signal, COUNT, psd, 513) == 0);
    ccore_spectral_peak peak;
    REQUIRE(ccore_spectrum_peak(s, psd, 0.7f, 3.5f, &peak) == 0);
    /* Interpolated to well within a bin (0.029 Hz). */
    CHECK_NEAR(peak.frequency_hz, f, 0.01);
    /* One-sided density: the sine's power A^2/2 integrates out of the PSD (the mean removed). */
    double total = 0;
    for (int i = 0; i < 513; i++) total += psd[i] * ccore_spectrum_bin_hz(s);
    CHECK_NEAR(total, amplitude * amplitude / 2, 0.1 * amplitude * amplitude / 2);
    /* Hann leakage spreads a pure tone over +-2 bins (0.06 Hz): most of it, not all, is "signal". */
    CHECK(ccore_spectrum_snr_db(s, psd, peak.frequency_hz, 0.7f, 3.5f) > 6);
    /* de Haan's SNR on a PSD made by hand: 10 at f0, 6 at 2 f0, 4 elsewhere in the band. */
    for (int i = 0; i < 513; i++) psd[i] = 0;
    psd[43] = 10;  /* 1.260 Hz, within 0.1 Hz of f0 = 1.25 */
    psd[85] = 6;   /* 2.490 Hz, within 0.2 Hz of 2 f0 */
    psd[102] = 4;  /* 2.988 Hz: noise */
    psd[200] = 50; /* 5.9 Hz: outside the band, ignored */
    CHECK_NEAR(ccore_spectrum_snr_db(s, psd, 1.25f, 0.75f, 4.0f), 10 * log10(16.0 / 4), 1e-4);
    ccore_spectrum_destroy(s);
}

void test_spectrum_pulse_with_harmonic(void) {
    ccore_spectrum *s = make();
    REQUIRE(s);
    static float signal[COUNT], psd[513];
    uint32_t state = 7;
    const float f = 72.0f / 60;
    for (int i = 0; i < COUNT; i++) {
        float t = i / RATE;
        signal[i] = 0.8f * sinf(2 * (float)M_PI * f * t) + 0.5f * sinf(4 * (float)M_PI * f * t + 0.6f) +
                    0.6f * noise(&state);
    }
    REQUIRE(ccore_spectrum_welch(s, signal, COUNT, psd, 513) == 0);
    ccore_spectral_peak peak;
    REQUIRE(ccore_spectrum_peak(s, psd, 0.7f, 3.5f, &peak) == 0);
    CHECK_NEAR(peak.frequency_hz * 60, 72, 1.0);
    float snr = ccore_spectrum_snr_db(s, psd, peak.frequency_hz, 0.7f, 3.5f);
    CHECK(snr > 3);
    /* Pure noise: the SNR at any frequency is far lower than with the pulse. */
    for (int i = 0; i < COUNT; i++) signal[i] = noise(&state);
    REQUIRE(ccore_spectrum_welch(s, signal, COUNT, psd, 513) == 0);
    CHECK(ccore_spectrum_snr_db(s, psd, f, 0.7f, 3.5f) < snr - 6);
    ccore_spectrum_destroy(s);
}

void test_spectrum_errors(void) {
    ccore_spectrum *s = NULL;
    ccore_spectrum_config bad = {.sample_rate_hz = 0, .segment_length = 256};
    CHECK_INT(ccore_spectrum_create(&bad, &s), -EINVAL);
    CHECK(s == NULL);
    s = make();
    REQUIRE(s);
    static float signal[COUNT], psd[513];
    CHECK_INT(ccore_spectrum_welch(s, signal, 100, psd, 513), -EINVAL);   /* shorter than a segment */
    CHECK_INT(ccore_spectrum_welch(s, signal, COUNT, psd, 100), -EINVAL); /* PSD buffer too small */
    ccore_spectral_peak peak;
    CHECK_INT(ccore_spectrum_peak(s, psd, 3.0f, 1.0f, &peak), -EINVAL); /* empty band */
    REQUIRE(ccore_spectrum_welch(s, signal, COUNT, psd, 513) == 0);      /* all zeros */
    CHECK_INT(ccore_spectrum_peak(s, psd, 0.7f, 3.5f, &peak), -ENODATA);
    CHECK(isnan(ccore_spectrum_snr_db(s, psd, 0.0f, 0.7f, 3.5f)));
    ccore_spectrum_destroy(s);
}
