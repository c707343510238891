/* The face image compiled into the generator (see face_astronaut.c). */
#ifndef GT_FACE_DATA_H
#define GT_FACE_DATA_H

extern const unsigned char gt_face_astronaut_jpeg[];
extern const unsigned long gt_face_astronaut_jpeg_size;

#endif
