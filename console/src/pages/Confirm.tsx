import {
  Button,
  Dialog,
  DialogActions,
  DialogBody,
  DialogContent,
  DialogSurface,
  DialogTitle,
  DialogTrigger,
} from '@fluentui/react-components';
import type { ReactElement } from 'react';

/** A button that asks before it acts. */
export function Confirm({
  trigger,
  title,
  text,
  confirmLabel,
  onConfirm,
}: {
  trigger: ReactElement;
  title: string;
  text: string;
  confirmLabel: string;
  onConfirm: () => void;
}) {
  return (
    <Dialog modalType="alert">
      <DialogTrigger disableButtonEnhancement>{trigger}</DialogTrigger>
      <DialogSurface aria-describedby={undefined}>
        <DialogBody>
          <DialogTitle>{title}</DialogTitle>
          <DialogContent>{text}</DialogContent>
          <DialogActions>
            <DialogTrigger disableButtonEnhancement>
              <Button appearance="secondary">Cancel</Button>
            </DialogTrigger>
            <DialogTrigger disableButtonEnhancement>
              <Button appearance="primary" onClick={onConfirm}>
                {confirmLabel}
              </Button>
            </DialogTrigger>
          </DialogActions>
        </DialogBody>
      </DialogSurface>
    </Dialog>
  );
}
